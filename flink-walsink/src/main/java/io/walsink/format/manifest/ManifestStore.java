package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.MemWalObject;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.StorageException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manifest versions of one shard, {@code _mem_wal/{shard}/manifest/} under a table's store.
 *
 * <p>Every version is its own immutable object created with put-if-absent at
 * {@code latest + 1}, so two writers can never both create the same version and the history has
 * no holes. {@code version_hint.json} is rewritten best effort afterwards and is only a starting
 * point for finding the latest version.
 *
 * <p>Garbage collection may remove the oldest versions: those below the floor recorded in the
 * shard's {@link GcFloor} may be absent, so the history must be contiguous from the floor, not from
 * 1. The floor is read only when a version is found missing, so reads of an intact history cost
 * what they did before.
 */
@Internal
public final class ManifestStore {
    private static final Logger LOG = LoggerFactory.getLogger(ManifestStore.class);

    private final ObjectStore store;
    private final UUID shardId;
    private final String manifestDir;

    public ManifestStore(ObjectStore store, UUID shardId) {
        this.store = Objects.requireNonNull(store, "store");
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.manifestDir = TableLayout.manifestFolder(shardId);
    }

    public UUID shardId() {
        return shardId;
    }

    /** Key of a version's object, relative to the table root. */
    public String versionKey(long version) {
        return TableLayout.manifestKey(shardId, version);
    }

    public String hintKey() {
        return TableLayout.versionHintKey(shardId);
    }

    /**
     * The newest manifest, or empty for a shard that has none yet.
     *
     * @throws ManifestGapException if the versions around the hint are not contiguous from 1, or
     *     from the shard's garbage-collection floor ({@link GcFloor}) when versions were collected
     * @throws CorruptManifestException if the newest object cannot be decoded
     */
    public Optional<ShardManifest> readLatest() {
        for (int attempt = 1; ; attempt++) {
            Optional<Optional<ShardManifest>> latest = tryReadLatest(attempt < 3);
            if (latest.isPresent()) {
                return latest.get();
            }
        }
    }

    // Empty when the read must start over: the first version appeared between our HEAD and our
    // LIST (a concurrent first claim), or the version we probed to was removed by garbage
    // collection before we read it.
    private Optional<Optional<ShardManifest>> tryReadLatest(boolean mayRetry) {
        OptionalLong hint = readHint();
        long start = hint.orElse(1);
        GcFloor floor = null; // read only when something is missing
        if (!store.exists(versionKey(start))) {
            floor = readFloor();
            if (floor.collectedVersion(start) && store.exists(versionKey(floor.manifestFloor()))) {
                // The hint (or version 1) was collected; the floor version is kept and never below the latest.
                start = floor.manifestFloor();
            } else {
                List<Long> present = listVersions();
                if (mayRetry && present.contains(start)) {
                    return Optional.empty();
                }
                if (mayRetry && floor.collectedVersion(start)) {
                    return Optional.empty(); // the floor rose meanwhile
                }
                return Optional.of(missingStart(start, hint.isPresent(), present, floor));
            }
        }
        if (start > 1 && !store.exists(versionKey(start - 1))) {
            if (floor == null) {
                floor = readFloor();
            }
            if (!floor.collectedVersion(start - 1)) {
                throw new ManifestGapException(
                        location(versionKey(start - 1)),
                        "manifest gap: version " + (start - 1) + " is missing below version " + start + " named by "
                                + TableLayout.VERSION_HINT + floorNote(floor));
            }
        }
        long latest = start;
        while (store.exists(versionKey(latest + 1))) {
            latest++;
        }
        if (hint.isPresent() && latest > hint.getAsLong()) {
            LOG.debug("Version hint of shard {} lags: {} < {}", shardId, hint.getAsLong(), latest);
        }
        try {
            return Optional.of(Optional.of(read(latest)));
        } catch (ObjectNotFoundException collectedMeanwhile) {
            // Garbage collection removes versions one at a time in ascending order, so if version
            // `latest` is still readable after `latest + 1` was seen missing, `latest + 1` was
            // never written: the answer is right. If it is gone, we probed through versions being
            // collected and must start again from the floor.
            if (mayRetry) {
                return Optional.empty();
            }
            throw collectedMeanwhile;
        }
    }

    // The first version to look at does not exist: either the shard is new or history is broken.
    private Optional<ShardManifest> missingStart(long start, boolean fromHint, List<Long> present, GcFloor floor) {
        if (start == 1 && present.isEmpty()) {
            return Optional.empty();
        }
        String why = fromHint
                ? TableLayout.VERSION_HINT + " names version " + start + " but it is missing"
                : "version 1 is missing";
        throw new ManifestGapException(
                location(versionKey(start)),
                "manifest gap: " + why + "; versions present: " + summarize(present) + floorNote(floor));
    }

    /**
     * Makes sure {@code version_hint.json} names a version at or above {@code floor}, writing
     * {@code latest} if it is missing, unreadable or below: garbage collection calls it before
     * it removes versions below {@code floor}, so that readers which trust the hint or start at
     * version 1 (other MemWAL implementations) find a kept version. Best effort, like every hint
     * write; a hint that lags behind the latest version is still valid.
     */
    public void raiseHintTo(long floor, long latest) {
        OptionalLong hint = readHint();
        if (hint.isEmpty() || hint.getAsLong() < floor) {
            writeHint(latest);
        }
    }

    /** The shard's garbage-collection floor; {@link GcFloor#NONE} if nothing was collected. */
    public GcFloor readFloor() {
        return GcFloor.read(store, shardId).orElse(GcFloor.NONE);
    }

    private static String floorNote(GcFloor floor) {
        return floor.manifestFloor() > 1
                ? " (garbage collection keeps every version from " + floor.manifestFloor() + " on)"
                : "";
    }

    /**
     * One version, checked against its name and this shard, its SSTable paths against
     * {@link SsTablePaths}.
     *
     * @throws ObjectNotFoundException if the version does not exist
     * @throws io.walsink.format.UnsafePathException if an SSTable path is not a folder of its
     *     generation in the shard folder
     */
    public ShardManifest read(long version) {
        String key = versionKey(version);
        String where = location(key);
        ShardManifest m = ShardManifestCodec.decode(store.get(key), where);
        if (m.version() != version) {
            throw new CorruptManifestException(where, "holds version " + m.version() + ", its name says " + version);
        }
        if (m.shardId() != null && !m.shardId().equals(shardId)) {
            throw new CorruptManifestException(where, "belongs to shard " + m.shardId() + ", not " + shardId);
        }
        SsTablePaths.requireAll(where, m);
        return m;
    }

    /** Every version number present, ascending (one LIST; for checks, not for the hot path). */
    public List<Long> listVersions() {
        return store.listAll(manifestDir).stream()
                .map(meta -> TableLayout.classify(meta.key()))
                .filter(o -> o.kind() == MemWalObject.Kind.MANIFEST_VERSION)
                .map(MemWalObject::number)
                .sorted()
                .toList();
    }

    /**
     * Creates version 1 of a shard that has none.
     *
     * @throws ManifestVersionTakenException if a peer created it first
     * @throws io.walsink.storage.AmbiguousWriteException if the outcome is unknown; passed on
     *     untouched because a peer's claim can be byte-identical to ours, so reading back proves
     *     nothing
     */
    public ShardManifest writeFirst(ShardManifest first) {
        return create(1, first);
    }

    /**
     * Creates version {@code current.version() + 1}, whatever version {@code next} carries.
     *
     * @param current the latest manifest the caller read; basing on it is what keeps the
     *     history gap-free
     * @throws ManifestVersionTakenException if a peer created that version first
     * @throws io.walsink.storage.AmbiguousWriteException if the outcome is unknown
     */
    public ShardManifest writeNext(ShardManifest current, ShardManifest next) {
        if (current.version() < 1) {
            throw new IllegalArgumentException("current manifest has no version: " + current);
        }
        return create(current.version() + 1, next);
    }

    private ShardManifest create(long version, ShardManifest m) {
        if (m.shardId() != null && !m.shardId().equals(shardId)) {
            throw new IllegalArgumentException("manifest of shard " + m.shardId() + " written to shard " + shardId);
        }
        ShardManifest stamped = m.toBuilder().version(version).shardId(shardId).build();
        String key = versionKey(version);
        SsTablePaths.requireAll(location(key), stamped); // never publish a path we would refuse to read
        try {
            store.putIfAbsent(key, ShardManifestCodec.encode(stamped));
        } catch (ObjectAlreadyExistsException e) {
            throw new ManifestVersionTakenException(location(key), version, e);
        }
        writeHint(version);
        return stamped;
    }

    private void writeHint(long version) {
        try {
            store.put(hintKey(), VersionHint.encode(version));
        } catch (StorageException e) {
            // Readers probe forward from a stale hint; only the version objects are authoritative.
            LOG.warn("Could not update {} to version {}: {}", location(hintKey()), version, e.getMessage());
        }
    }

    private OptionalLong readHint() {
        byte[] bytes;
        try {
            bytes = store.get(hintKey());
        } catch (ObjectNotFoundException absent) {
            return OptionalLong.empty();
        }
        OptionalLong hint = VersionHint.parse(bytes);
        if (hint.isEmpty()) {
            LOG.warn("Ignoring unreadable {}; probing from version 1", location(hintKey()));
        }
        return hint;
    }

    /** The object {@code key} of this store as a user would write it, for messages. */
    public String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    private static String summarize(List<Long> versions) {
        if (versions.size() <= 10) {
            return versions.toString();
        }
        return versions.subList(0, 5) + "..." + versions.subList(versions.size() - 5, versions.size());
    }
}
