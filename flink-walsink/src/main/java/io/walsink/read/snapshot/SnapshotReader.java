package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.ReadMode;
import io.walsink.read.TableRows;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merge-on-read of a whole MemWAL table as of a {@link TableSnapshot}, pinned by {@link #pin}:
 * the base table (generation 0), then every shard ({@link #shards}, see {@link ShardReader});
 * newest wins per primary key, keys whose newest row is a tombstone are absent, append-only tables
 * return every row. What {@code TableReader} offers users, and what walsink's own
 * readers (scans, searches, lookups) need beyond it: a snapshot kept between calls, rows built by a
 * {@link RowExtractor}, one bucket at a time.
 *
 * <p>SSTables already compacted into the base table are skipped when lance-core reports them
 * ({@link CompactedSsTables}). Closes the store and the allocator only when it opened them ({@link #open}).
 */
@Internal
public final class SnapshotReader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotReader.class);

    private final TableLocation location;
    private final String tableUri;
    private final ObjectStore store;
    private final WalSchemaProfile profile;
    private final BufferAllocator allocator;
    /** Whether {@link #close()} closes the store and the allocator ({@link #open} made them). */
    private final boolean owned;

    /**
     * @param location the table: its store (manifests and WAL entries), base table and SSTables
     * @param profile the WAL schema profile the table's writers use
     * @param allocator holds batches while they are read; nothing stays allocated afterwards
     */
    public SnapshotReader(TableLocation location, WalSchemaProfile profile, BufferAllocator allocator) {
        this(location, profile, allocator, false);
    }

    private SnapshotReader(TableLocation location, WalSchemaProfile profile, BufferAllocator allocator, boolean owned) {
        this.owned = owned;
        this.location = Objects.requireNonNull(location, "location");
        this.tableUri = location.uri();
        this.store = location.store();
        this.profile = Objects.requireNonNull(profile, "profile");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    /**
     * A reader that opens its own object store (the same client and S3 settings as the sink) and
     * Arrow allocator, and closes both on {@link #close()}.
     *
     * @param path the table, local or {@code s3://bucket/prefix}
     * @param profile the WAL schema profile the table's writers use (for {@link ReadMode#LATEST})
     */
    public static SnapshotReader open(String path, S3Options s3, WalSchemaProfile profile) {
        ObjectStore store = ObjectStores.open(path, s3);
        return new SnapshotReader(TableLocation.of(store, path, s3), profile, new RootAllocator(), true);
    }

    /** Closes the store and allocator this reader opened itself; a no-op for one given them. */
    @Override
    public void close() {
        if (owned) {
            store.close();
            allocator.close();
        }
    }

    public String tableUri() {
        return tableUri;
    }

    public TableLocation location() {
        return location;
    }

    /**
     * @throws io.walsink.format.table.TableNotFoundException if there is no Lance table at the URI
     * @throws io.walsink.format.FormatException (or a subtype: corrupt manifest, manifest gap,
     *     corrupt WAL entry, unsafe SSTable path) naming the object at fault
     * @throws io.walsink.storage.StorageException if storage fails; for lance-core's S3 I/O it
     *     names the dataset, the operation and the likely cause ({@link
     *     io.walsink.format.table.LanceFailures})
     */
    public TableRows read(ReadMode mode) {
        return read(pin(mode));
    }

    /** All columns of the live rows of {@code snapshot}, with the table's columns and key. */
    public TableRows read(TableSnapshot snapshot) {
        try (Dataset base = openBase(snapshot)) {
            TableColumns layout = TableColumns.of(base);
            List<Map<String, Object>> rows =
                    merge(base, layout, snapshot, RowValues.extractor(layout.userColumns()), null);
            return new TableRows(layout.userColumns(), layout.userKey(), rows);
        }
    }

    /**
     * As {@link #read(ReadMode)}, each live row built by {@code extractor} (which sees the table's
     * columns and may read only some of them): by primary-key bytes, or in read order for an
     * append-only table.
     */
    public <R> List<R> read(ReadMode mode, RowExtractor<R> extractor) {
        return read(pin(mode), extractor);
    }

    /**
     * As {@link #read(ReadMode, RowExtractor)}, for one bucket only: the base rows of that bucket
     * and the shard whose field entries name it. Reading every bucket this way gives the whole
     * table, provided {@link #bucketsReadSeparately()} holds.
     */
    public <R> List<R> read(ReadMode mode, RowExtractor<R> extractor, BucketSelection bucket) {
        return read(pin(mode), extractor, bucket);
    }

    /**
     * Fixes what a later {@link #read(TableSnapshot, RowExtractor)} reads: each shard's latest
     * manifest version (and, in {@link ReadMode#LATEST}, its last WAL position present), then the
     * base table's latest version, in that order (see {@link #merge} for why).
     */
    public TableSnapshot pin(ReadMode mode) {
        List<PinnedShard> pinned = new ArrayList<>();
        for (UUID shard : shards()) {
            pinned.add(shard(shard).pin(mode));
        }
        try (Dataset base = location.openBase(allocator)) {
            return new TableSnapshot(mode, base.version(), pinned);
        }
    }

    /**
     * A snapshot of base table version {@code version} alone: the rows compaction had merged by
     * then, as LanceDB's {@code checkout(version)} reads them without its LSM read. Rows that were
     * still in SSTables or WAL entries at that time are not part of a version.
     *
     * @throws IllegalArgumentException if the table holds no such version, naming the versions it
     *     holds and why older ones are gone
     */
    public TableSnapshot pinVersion(long version) {
        try (Dataset base = location.openBase(allocator)) {
            List<Long> held =
                    base.listVersions().stream().map(v -> v.getId()).sorted().toList();
            if (!held.contains(version)) {
                throw new IllegalArgumentException("Table " + tableUri + " has no base table version " + version
                        + " (it holds " + held.size() + " versions, " + held.get(0) + " to " + held.get(held.size() - 1)
                        + "): a version superseded longer ago than " + ExpiredSnapshot.RETENTION_OPTION
                        + " is removed by the cleanup unless a tag names it");
            }
        }
        return new TableSnapshot(ReadMode.COMMITTED, version, List.of());
    }

    /**
     * {@link #pinVersion} of the version tag {@code tag} names.
     *
     * @throws IllegalArgumentException if no tag has that name, naming the tags there are
     */
    public TableSnapshot pinTag(String tag) {
        long version;
        try (Dataset base = location.openBase(allocator)) {
            List<String> tags =
                    base.tags().list().stream().map(t -> t.getName()).sorted().toList();
            if (!tags.contains(tag)) {
                throw new IllegalArgumentException("Table " + tableUri + " has no tag '" + tag + "'; its tags: "
                        + (tags.isEmpty() ? "none" : tags));
            }
            version = base.tags().getVersion(tag);
        }
        return pinVersion(version);
    }

    /**
     * {@link #pinVersion} of the version that was the base table's latest at {@code at}: the
     * highest-numbered one committed at or before it.
     *
     * @throws IllegalArgumentException if the table holds no version committed by then, or cannot
     *     tell which it was because the versions after it were removed, naming the retention
     */
    public TableSnapshot pinTimestamp(Instant at) {
        try (Dataset base = location.openBase(allocator)) {
            return pinVersion(VersionAtTime.find(tableUri, base.listVersions(), at));
        }
    }

    /**
     * The live rows of {@code snapshot}, whenever it is called: the same rows in the same order
     * for the same snapshot, by primary-key bytes (an append-only table: base rows in Lance's
     * fragment order, then SSTables by generation, then WAL entries by position).
     *
     * @throws io.walsink.format.manifest.GarbageCollectedException if an object the snapshot
     *     names is gone (garbage collection ran past it), naming the object and the retention
     *     setting to raise
     */
    public <R> List<R> read(TableSnapshot snapshot, RowExtractor<R> extractor) {
        try (Dataset base = openBase(snapshot)) {
            return merge(base, TableColumns.of(base), snapshot, extractor, null);
        }
    }

    /** As {@link #read(TableSnapshot, RowExtractor)}, for one bucket: its base rows and its shards. */
    public <R> List<R> read(TableSnapshot snapshot, RowExtractor<R> extractor, BucketSelection bucket) {
        try (Dataset base = openBase(snapshot)) {
            return merge(base, TableColumns.of(base), snapshot, extractor, bucket);
        }
    }

    /**
     * The base table at the version {@code snapshot} pinned; the caller closes it.
     *
     * @throws io.walsink.format.manifest.GarbageCollectedException if that version was cleaned up
     */
    public Dataset openBase(TableSnapshot snapshot) {
        return PinnedBase.open(allocator, location, snapshot);
    }

    /**
     * Applies to {@code rows} every shard's rows above the base table {@code base} holds, as
     * {@code snapshot} pinned them: the rows a search of the base table cannot see.
     */
    public <R> void applyShards(Dataset base, TableColumns layout, TableSnapshot snapshot, MergedRows<R> rows) {
        WalStorageSchema storage = layout.storage(profile);
        Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
        for (PinnedShard shard : snapshot.shards()) {
            shard(shard.shardId()).applyTo(rows, storage, snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L));
        }
    }

    /**
     * Each SSTable of {@code snapshot} above the base table {@code base} holds, per shard by
     * generation, open during the call.
     */
    public void forEachSsTableAbove(TableSnapshot snapshot, Dataset base, BiConsumer<String, Dataset> visitor) {
        Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
        for (PinnedShard shard : snapshot.shards()) {
            shard(shard.shardId())
                    .forEachSsTable(snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L), visitor);
        }
    }

    /**
     * The bucket selections that together cover the table, when it is bucket-sharded and every
     * shard in storage names its bucket; empty otherwise (then read the table whole).
     */
    public Optional<List<BucketSelection>> bucketsReadSeparately() {
        return bucketsReadSeparately(pin(ReadMode.COMMITTED));
    }

    /**
     * As {@link #bucketsReadSeparately()}, for the shards and the sharding of {@code snapshot}:
     * the buckets a scan of that snapshot can read in parallel.
     */
    public Optional<List<BucketSelection>> bucketsReadSeparately(TableSnapshot snapshot) {
        TableInfo info;
        try (Dataset base = openBase(snapshot)) {
            if (base.memWalIndexDetails().isEmpty()) {
                return Optional.empty(); // a plain Lance table (one LanceDB created): no shards
            }
            info = LanceTables.describe(tableUri, base, true);
        }
        if (info.sharding().sharding().transform() != ShardTransform.BUCKET || !snapshot.everyShardNamesItsBucket()) {
            return Optional.empty(); // a shard without a bucket entry could hold any key
        }
        String column = info.sharding().sharding().sourceColumn().orElseThrow();
        int n = info.sharding().sharding().numBuckets().orElseThrow();
        List<BucketSelection> buckets = new ArrayList<>();
        for (int b = 0; b < n; b++) {
            buckets.add(new BucketSelection(column, n, b));
        }
        return Optional.of(buckets);
    }

    /**
     * Reads one snapshot, pinned by {@link #pin}: each shard's manifest first, then the base
     * table at its latest version, whose merge progress says which of those manifests' SSTables
     * it holds already. The order is what makes it consistent however compaction moves
     * meanwhile: a writer drops an SSTable from its manifest only once it is merged, so an
     * SSTable missing from a manifest read before the base version was merged by that version,
     * and one still listed is skipped exactly when that version holds it. (Reading the base first
     * could miss generations merged after it and dropped before the manifests were read.)
     * SSTables a manifest lists stay readable for at least the garbage-collection retention.
     *
     * <p>Every input is fixed by a version number and read in a fixed order (base fragments, then
     * per shard SSTables by generation and WAL entries by position), and the live rows come out
     * sorted by key, so the result is a function of the snapshot alone.
     */
    private <R> List<R> merge(
            Dataset base,
            TableColumns layout,
            TableSnapshot snapshot,
            RowExtractor<R> extractor,
            BucketSelection bucket) {
        WalStorageSchema storage = layout.storage(profile);
        Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
        MergedRows<R> rows = new MergedRows<>(layout, extractor);
        DatasetBatches.forEach(base, tableUri, location, batch -> rows.apply(batch, tableUri, bucket));
        int read = 0;
        for (PinnedShard shard : snapshot.shards()) {
            if (bucket == null || shard.bucket() == bucket.bucket()) {
                shard(shard.shardId())
                        .applyTo(rows, storage, snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L));
                read++;
            }
        }
        List<R> live = rows.live();
        LOG.debug("Read {} rows of {} ({}, {} shards read)", live.size(), tableUri, snapshot.describe(), read);
        return live;
    }

    private ShardReader shard(UUID shardId) {
        return new ShardReader(location, shardId, profile, allocator);
    }

    /**
     * The table's shards, by UUID order: the folders under {@code _mem_wal/} holding a manifest
     * version (a folder without one has nothing to read; see {@link TableLayout}).
     */
    public Set<UUID> shards() {
        return TableLayout.shards(store);
    }
}
