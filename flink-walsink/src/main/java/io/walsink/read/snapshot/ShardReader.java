package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.wal.WalEntry;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.ReadMode;
import io.walsink.read.TableRows;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what one shard adds on top of the base table: the published SSTables of one manifest
 * version in generation order, then (in {@link ReadMode#LATEST}) its WAL entries from
 * {@code replay_after + 1} up to a position fixed when the shard was pinned, skipping fence
 * sentinels. Both bounds are numbers, so a second read of a {@link PinnedShard} reads the same
 * objects as the first.
 */
@Internal
public final class ShardReader {
    private static final Logger LOG = LoggerFactory.getLogger(ShardReader.class);

    private final TableLocation location;
    private final ObjectStore store;
    private final String tableUri;
    private final UUID shardId;
    private final WalSchemaProfile profile;
    private final BufferAllocator allocator;

    /**
     * @param location the table: its store (manifests and WAL entries) and SSTable datasets
     * @param profile the WAL schema profile the shard's writer uses (decides the entry schema)
     */
    public ShardReader(TableLocation location, UUID shardId, WalSchemaProfile profile, BufferAllocator allocator) {
        this.location = Objects.requireNonNull(location, "location");
        this.store = location.store();
        this.tableUri = location.uri();
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    public UUID shardId() {
        return shardId;
    }

    /**
     * The shard's rows alone (no base table), merged newest-wins.
     *
     * @throws TableNotFoundException if there is no table at the URI
     * @throws FormatException (or a subtype) naming the manifest, SSTable or WAL entry at fault
     */
    public TableRows read(ReadMode mode) {
        TableColumns layout;
        long baseVersion;
        try (Dataset base = location.openBase(allocator)) {
            layout = TableColumns.of(base);
            baseVersion = base.version();
        }
        PinnedShard pinned = pin(mode);
        TableSnapshot snapshot = new TableSnapshot(mode, baseVersion, List.of(pinned));
        MergedRows<Map<String, Object>> rows = new MergedRows<>(layout, RowValues.extractor(layout.userColumns()));
        applyTo(rows, layout.storage(profile), snapshot, pinned, 0);
        return new TableRows(layout.userColumns(), layout.userKey(), rows.live());
    }

    /**
     * The shard's part of a snapshot: its latest manifest version and, in {@link ReadMode#LATEST},
     * the last WAL position present above that manifest's {@code replay_after} position right now,
     * so a later read stops there even if the writer appends more.
     */
    public PinnedShard pin(ReadMode mode) {
        Optional<ShardManifest> latest = new ManifestStore(store, shardId).readLatest();
        if (latest.isEmpty()) {
            return new PinnedShard(shardId, 0, 0, PinnedShard.NO_BUCKET);
        }
        ShardManifest manifest = latest.get();
        long walThrough = 0;
        if (mode == ReadMode.LATEST) {
            long position = manifest.replayAfterWalEntryPosition() + 1;
            while (store.exists(TableLayout.walEntryKey(shardId, position))) {
                position++;
            }
            walThrough = position - 1;
        }
        return new PinnedShard(shardId, manifest.version(), walThrough, bucketOf(manifest));
    }

    public static int bucketOf(ShardManifest manifest) {
        return manifest.shardFieldEntries().stream()
                .filter(e -> e.fieldId().equals("bucket"))
                .findFirst()
                .map(e -> e.int32Value())
                .filter(OptionalInt::isPresent)
                .map(OptionalInt::getAsInt)
                .orElse(PinnedShard.NO_BUCKET);
    }

    /**
     * Applies the rows {@code pinned} names to {@code rows}: the SSTables of its manifest version
     * of generation > {@code compactedThrough}, by generation, then (in {@link ReadMode#LATEST})
     * its WAL entries up to the pinned position.
     *
     * @throws io.walsink.format.manifest.GarbageCollectedException if one of them is gone
     */
    public void applyTo(
            MergedRows<?> rows,
            WalStorageSchema storage,
            TableSnapshot snapshot,
            PinnedShard pinned,
            long compactedThrough) {
        if (pinned.manifestVersion() == 0) {
            LOG.debug("Shard {} had no manifest when pinned; nothing to read", shardId);
            return;
        }
        ShardManifest manifest = readManifest(snapshot, pinned.manifestVersion());
        List<SsTable> sstables = sstables(manifest, compactedThrough);
        forEachSsTable(
                snapshot,
                pinned,
                sstables,
                (uri, ds) -> DatasetBatches.forEach(ds, uri, location, batch -> rows.apply(batch, uri)));
        if (snapshot.mode() == ReadMode.LATEST) {
            WalLog wal = new WalLog(store, shardId, new WalEntryCodec(storage, allocator));
            ManifestStore manifests = new ManifestStore(store, shardId); // names objects in messages
            long first = manifest.replayAfterWalEntryPosition() + 1;
            for (long position = first; position <= pinned.walThrough(); position++) {
                String where = wal.key(position);
                try (WalEntry entry = wal.read(position)
                        .orElseThrow(() -> ExpiredSnapshot.of(
                                manifests.location(where), "WAL entry " + where, tableUri, snapshot, null))) {
                    if (!entry.sentinel()) {
                        entry.batches().forEach(batch -> rows.apply(batch, where));
                    }
                }
            }
            LOG.debug("Shard {}: {} SSTables, WAL tail {}..{}", shardId, sstables.size(), first, pinned.walThrough());
        }
    }

    /**
     * Hands {@code visitor} each SSTable of {@code pinned}'s manifest version of generation above
     * {@code compactedThrough}, oldest first, open (and closed after the call).
     *
     * @throws io.walsink.format.manifest.GarbageCollectedException if one of them is gone
     */
    public void forEachSsTable(
            TableSnapshot snapshot, PinnedShard pinned, long compactedThrough, BiConsumer<String, Dataset> visitor) {
        if (pinned.manifestVersion() == 0) {
            return;
        }
        ShardManifest manifest = readManifest(snapshot, pinned.manifestVersion());
        forEachSsTable(snapshot, pinned, sstables(manifest, compactedThrough), visitor);
    }

    private void forEachSsTable(
            TableSnapshot snapshot, PinnedShard pinned, List<SsTable> sstables, BiConsumer<String, Dataset> visitor) {
        for (SsTable sstable : sstables) {
            String uri = location.ssTableUri(shardId, sstable.path());
            try (Dataset ds = openSsTable(uri, sstable, snapshot, pinned)) {
                visitor.accept(uri, ds);
            }
        }
    }

    private static List<SsTable> sstables(ShardManifest manifest, long compactedThrough) {
        return manifest.sstables().stream()
                .filter(t -> t.generation() > compactedThrough)
                .sorted(Comparator.comparingLong(SsTable::generation))
                .toList();
    }

    private ShardManifest readManifest(TableSnapshot snapshot, long version) {
        ManifestStore manifests = new ManifestStore(store, shardId);
        try {
            return manifests.read(version);
        } catch (ObjectNotFoundException e) {
            throw ExpiredSnapshot.of(
                    manifests.location(manifests.versionKey(version)),
                    "manifest version " + version + " of shard " + shardId,
                    tableUri,
                    snapshot,
                    null);
        }
    }

    private Dataset openSsTable(String uri, SsTable sstable, TableSnapshot snapshot, PinnedShard pinned) {
        try {
            return location.open(allocator, uri);
        } catch (TableNotFoundException e) {
            // Published SSTables are removed only after compaction merged them and no kept
            // manifest version lists them, so one missing from a pinned version was collected.
            throw ExpiredSnapshot.of(
                    uri,
                    "SSTable generation " + sstable.generation() + " of shard " + shardId
                            + ", published in its manifest" + " version " + pinned.manifestVersion() + ",",
                    tableUri,
                    snapshot,
                    null);
        }
    }
}
