package io.walsink.maintenance.migration;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardManifestCodec;
import io.walsink.format.manifest.TableShards;
import io.walsink.format.table.MergeMark;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.recovery.CompactionLease;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * Moves the shards that earlier releases named by their own ids to the ids Lance's writers
 * derive ({@code walsink migrate-shard-ids}). Writers of the table must be stopped; the run holds the
 * compaction lease, so no compactor merges meanwhile.
 *
 * <p>Per shard: seal the old shard (a writer of the previous release started by mistake refuses a
 * sealed shard), copy its WAL entries, SSTable folders and garbage-collection floor unchanged to
 * the new id, then every manifest version under the same version number with the new shard id, the
 * sealing version written back ACTIVE (merged SSTables still listed, as a checkpoint pinned them); move the
 * restore protocol's records of the shard (merge journal, restore intent, last reset, passed-over
 * numbers); mark the new id merged in the base table as far as the old one was; then delete the old
 * shard. Everything a checkpoint descriptor points at (manifest versions, WAL
 * positions, generations, SSTable paths) is the same under the new id, so the writer restores a
 * descriptor of the previous release by its bucket. Rerunning after a crash continues: an object
 * already copied must be byte-identical, anything else is refused.
 */
@Internal
public final class ShardIdMigration {
    /** One shard moved (or to move): its bucket (0 for an unsharded table) and both ids. */
    public record Move(int bucket, UUID from, UUID to) {}

    private final TableLocation location;
    private final ObjectStore store;
    private final String tableUri;
    private final BufferAllocator allocator;

    public ShardIdMigration(TableLocation location, BufferAllocator allocator) {
        this.location = location;
        this.store = location.store();
        this.tableUri = location.uri();
        this.allocator = allocator;
    }

    /** The moves a run would make; empty when the table needs none. */
    public List<Move> plan() {
        TableShards shards = shards(location.describe(true));
        List<Move> moves = new ArrayList<>();
        shards.legacy().forEach((bucket, from) -> moves.add(new Move(bucket, from, shards.lanceId(bucket))));
        return moves;
    }

    /** Makes the moves, reporting each step to {@code progress}. */
    public List<Move> run(Consumer<String> progress) {
        List<Move> moves = plan();
        if (moves.isEmpty()) {
            return moves;
        }
        try (CompactionLease lease =
                CompactionLease.acquire(store, tableUri, holder(), Duration.ofMinutes(10), System::currentTimeMillis)) {
            Map<UUID, Long> merged = MergedGenerations.latest(allocator, tableUri, location.storageOptions());
            List<String> primaryKey = location.describe(true).primaryKey();
            for (Move m : moves) {
                long mergedThrough = merged.getOrDefault(m.from(), 0L);
                copyShard(m, progress);
                lease.renew();
                if (mergedThrough > merged.getOrDefault(m.to(), 0L)) {
                    markMerged(m, primaryKey, mergedThrough, progress);
                    lease.renew();
                }
                removeShard(m, progress);
            }
        }
        return moves;
    }

    private TableShards shards(TableInfo table) {
        OptionalInt buckets = table.sharding().sharding().transform() == ShardTransform.BUCKET
                ? table.sharding().sharding().numBuckets()
                : OptionalInt.empty();
        return TableShards.read(
                store, table.sharding().specId(), buckets, !table.primaryKey().isEmpty());
    }

    private void copyShard(Move m, Consumer<String> progress) {
        ManifestStore from = new ManifestStore(store, m.from());
        ManifestStore to = new ManifestStore(store, m.to());
        String fromFolder = TableLayout.shardFolder(m.from());
        String toFolder = TableLayout.shardFolder(m.to());
        ShardManifest latest = from.readLatest()
                .orElseThrow(() -> new FormatException(location(fromFolder), "shard has no manifest to migrate", null));
        requireOnlyOurCopy(from, to, m, latest);
        if (!latest.isSealed()) {
            latest = from.writeNext(
                    latest, latest.withWriterEpoch(latest.writerEpoch() + 1).sealed());
            progress.accept("sealed shard " + m.from() + " at manifest version " + latest.version());
        }
        GcFloor.read(store, m.from()).ifPresent(floor -> GcFloor.write(store, m.to(), floor));
        int copied = 0;
        String fromManifests = TableLayout.manifestFolder(m.from());
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            if (!meta.key().startsWith(fromManifests)) {
                copy(meta.key(), store.get(meta.key()), toFolder + meta.key().substring(fromFolder.length()));
                copied++;
            }
        }
        for (long v : from.listVersions()) {
            copy(from.versionKey(v), manifestUnder(m.to(), from.read(v), latest.version()), to.versionKey(v));
        }
        if (store.exists(from.hintKey())) {
            store.put(to.hintKey(), store.get(from.hintKey()));
        }
        copied += copyRestoreRecords(m);
        progress.accept("copied shard " + m.from() + " to " + m.to() + " (bucket " + m.bucket() + "): " + copied
                + " objects and manifest versions through " + latest.version());
    }

    /**
     * What the restore protocol records of a shard outside its folder (half-done merges, an
     * unfinished reset, the last reset, passed-over generation numbers) is a fact about its rows, so
     * it moves with them. Returns how many records were copied.
     */
    private int copyRestoreRecords(Move m) {
        List<String> keys = restoreRecords(m.from());
        for (String key : keys) {
            copy(key, store.get(key), key.replace(m.from().toString(), m.to().toString()));
        }
        return keys.size();
    }

    /** The keys of {@code shard}'s restore records: its merge journal, passed-over numbers, restore intent and last reset. */
    private List<String> restoreRecords(UUID shard) {
        List<String> keys = new ArrayList<>();
        for (String folder :
                List.of(TableLayout.mergeJournalFolder(shard), TableLayout.skippedGenerationsFolder(shard))) {
            store.listAll(folder).forEach(meta -> keys.add(meta.key()));
        }
        for (String key : List.of(TableLayout.restoreIntentKey(shard), TableLayout.lastResetKey(shard))) {
            if (store.exists(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * The base table records merge progress by shard id: the new id is marked merged through what
     * the old one was, before the old shard goes (a rerun after a crash then still finds it), so a
     * restore of an earlier checkpoint sees what was merged after it.
     */
    private void markMerged(Move m, List<String> primaryKey, long mergedThrough, Consumer<String> progress) {
        try (Dataset base = location.openBase(allocator)) {
            MergeMark.commit(base, primaryKey, m.to(), mergedThrough, allocator);
        }
        progress.accept("marked shard " + m.to() + " merged through generation " + mergedThrough
                + " in the base table, as shard " + m.from() + " was");
    }

    private void removeShard(Move m, Consumer<String> progress) {
        String fromFolder = TableLayout.shardFolder(m.from());
        String fromManifests = TableLayout.manifestFolder(m.from());
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            if (!meta.key().startsWith(fromManifests)) {
                store.delete(meta.key());
            }
        }
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            store.delete(meta.key());
        }
        if (store.exists(GcFloor.key(m.from()))) {
            store.delete(GcFloor.key(m.from()));
        }
        restoreRecords(m.from()).forEach(store::delete);
        progress.accept("removed shard " + m.from());
    }

    /**
     * Lance's shard of the bucket may exist only as an earlier, interrupted run of ours left it:
     * every manifest version there is our copy of the old one, every other object equals the old
     * object it was copied from (or that object is gone: removal starts only after a whole copy).
     * A writer that opened the shard would have claimed a manifest version of its own.
     */
    private void requireOnlyOurCopy(ManifestStore from, ManifestStore to, Move m, ShardManifest latest) {
        String toFolder = TableLayout.shardFolder(m.to());
        String fromFolder = TableLayout.shardFolder(m.from());
        String toManifests = TableLayout.manifestFolder(m.to());
        List<Long> versions = from.listVersions();
        for (ObjectMeta meta : store.listAll(toFolder)) {
            String key = meta.key();
            boolean ours;
            if (key.equals(to.hintKey())) {
                ours = true; // a hint, written again by every run
            } else if (key.startsWith(toManifests)) {
                ours = versions.stream()
                        .filter(v -> to.versionKey(v).equals(key))
                        .anyMatch(v ->
                                Arrays.equals(store.get(key), manifestUnder(m.to(), from.read(v), latest.version())));
            } else {
                String fromKey = fromFolder + key.substring(toFolder.length());
                ours = !store.exists(fromKey) || Arrays.equals(store.get(fromKey), store.get(key));
            }
            if (!ours) {
                throw new FormatException(
                        location(toFolder),
                        "Lance's shard of bucket " + m.bucket() + " exists beside shard " + m.from()
                                + " (another writer opened it; " + location(key) + " is not our copy): the bucket's"
                                + " keys are in two shards, which a migration cannot merge. Compact the table, then"
                                + " remove the younger shard by hand",
                        null);
            }
        }
    }

    /**
     * A version under the new id lists what it listed under the old one, merged SSTables too: a
     * checkpoint's pinned version is its SSTable list, which a restore that resets the shard's rows
     * to the checkpoint's base version applies again. Readers leave the merged ones out by the mark.
     */
    private static byte[] manifestUnder(UUID id, ShardManifest m, long sealedVersion) {
        ShardManifest moved = m.toBuilder().shardId(id).build();
        return ShardManifestCodec.encode(m.version() == sealedVersion ? moved.active() : moved);
    }

    private void copy(String fromKey, byte[] bytes, String toKey) {
        try {
            store.putIfAbsent(toKey, bytes);
        } catch (ObjectAlreadyExistsException e) {
            if (!Arrays.equals(store.get(toKey), bytes)) {
                throw new FormatException(
                        location(toKey), "exists and differs from " + location(fromKey) + ", refusing to migrate", e);
            }
        }
    }

    private String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    private static String holder() {
        return "migrate-shard-ids " + ManagementFactory.getRuntimeMXBean().getName();
    }
}
