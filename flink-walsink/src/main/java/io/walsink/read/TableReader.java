package io.walsink.read;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
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
 * Merge-on-read of a whole MemWAL table, "as of now" or as of a {@link TableSnapshot} pinned
 * earlier ({@link #pin}): the base table (generation 0), then every
 * shard ({@link #shards}, see {@link ShardReader}); newest wins per primary key,
 * keys whose newest row is a tombstone are absent, append-only tables return every row.
 *
 * <p>SSTables already compacted into the base table are skipped when lance-core reports them
 * ({@link CompactedSsTables}). Materializes the result: meant for tests, tools and small tables.
 *
 * <p>Searches read only what they need of the same state: {@link #nearest} (the k nearest rows to a
 * vector, through the base table's vector index) and {@link #fullText} (the k best full-text
 * matches, through the maintained inverted indexes), each a key's newest row, deletes honoured.
 *
 * <pre>{@code
 * try (TableReader reader = TableReader.open("s3://bucket/tables/events", s3Options)) {
 *     List<Map<String, Object>> rows = reader.read(ReadMode.COMMITTED).rows();
 * }
 * }</pre>
 */
@PublicEvolving
public final class TableReader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TableReader.class);

    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final ObjectStore store;
    private final WalSchemaProfile profile;
    private final BufferAllocator allocator;
    /** Whether {@link #close()} closes the store and the allocator ({@link #open} made them). */
    private final boolean owned;

    /**
     * @param storageOptions lance-core options for the base table and the SSTables
     * @param store the table's object store, for manifests and WAL entries
     * @param profile the WAL schema profile the table's writers use
     * @param allocator holds batches while they are read; nothing stays allocated afterwards
     */
    public TableReader(
            String tableUri,
            Map<String, String> storageOptions,
            ObjectStore store,
            WalSchemaProfile profile,
            BufferAllocator allocator) {
        this(tableUri, storageOptions, store, profile, allocator, false);
    }

    private TableReader(
            String tableUri,
            Map<String, String> storageOptions,
            ObjectStore store,
            WalSchemaProfile profile,
            BufferAllocator allocator,
            boolean owned) {
        this.owned = owned;
        this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
        this.storageOptions = Map.copyOf(storageOptions);
        this.store = Objects.requireNonNull(store, "store");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    /** A reader of the local table at {@code path} ({@code file:///dir} or a directory). */
    public static TableReader open(String path) {
        return open(path, S3Options.defaults());
    }

    /** A reader of the table at {@code path}, local or {@code s3://bucket/prefix}, written with the spec profile. */
    public static TableReader open(String path, S3Options s3) {
        return open(path, s3, WalSchemaProfile.SPEC);
    }

    /**
     * A reader that opens its own object store (the same client and S3 settings as the sink) and
     * Arrow allocator, and closes both on {@link #close()}.
     *
     * @param profile the WAL schema profile the table's writers use (for {@link ReadMode#LATEST})
     */
    public static TableReader open(String path, S3Options s3, WalSchemaProfile profile) {
        StorageLocation location = StorageLocation.parse(path);
        ObjectStore store = ObjectStores.open(path, s3);
        return new TableReader(
                location.lanceUri(), LanceStorageOptions.of(location, s3), store, profile, new RootAllocator(), true);
    }

    /** Closes the store and allocator this reader opened itself; a no-op for one given them. */
    @Override
    public void close() {
        if (owned) {
            store.close();
            allocator.close();
        }
    }

    /**
     * @throws TableNotFoundException if there is no Lance table at the URI
     * @throws FormatException (or a subtype: corrupt manifest, manifest gap, corrupt WAL entry,
     *     unsafe SSTable path) naming the object at fault
     * @throws io.walsink.storage.StorageException if storage fails; for lance-core's S3 I/O it
     *     names the dataset, the operation and the likely cause ({@link
     *     io.walsink.format.table.LanceFailures})
     */
    public TableRows read(ReadMode mode) {
        TableSnapshot snapshot = pin(mode);
        try (Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot)) {
            TableColumns layout = TableColumns.of(base);
            List<Map<String, Object>> rows = merge(base, layout, snapshot, RowValues.extractor(layout.columns()), null);
            return new TableRows(layout.columns(), layout.primaryKey(), rows);
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
            pinned.add(new ShardReader(store, tableUri, storageOptions, shard, profile, allocator).pin(mode));
        }
        try (Dataset base = LanceTables.openDataset(allocator, tableUri, storageOptions)) {
            return new TableSnapshot(mode, base.version(), pinned);
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
        try (Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot)) {
            return merge(base, TableColumns.of(base), snapshot, extractor, null);
        }
    }

    /** As {@link #read(TableSnapshot, RowExtractor)}, for one bucket: its base rows and its shards. */
    public <R> List<R> read(TableSnapshot snapshot, RowExtractor<R> extractor, BucketSelection bucket) {
        try (Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot)) {
            return merge(base, TableColumns.of(base), snapshot, extractor, bucket);
        }
    }

    /**
     * The {@code query.k()} live rows nearest the query vector, as a {@link #read(ReadMode)} of the
     * same moment would hold them (newest row per key, deleted keys absent), each with its distance,
     * nearest first. The base table is searched by lance-core through its vector index on the column
     * when it has one (else exactly), the rows above it exactly.
     *
     * @throws IllegalArgumentException if the column is not a vector column of the table, or its
     *     dimension is not the query vector's
     */
    public List<Neighbour<Map<String, Object>>> nearest(ReadMode mode, NearestQuery query) {
        return nearest(pin(mode), query, null);
    }

    /**
     * As {@link #nearest(ReadMode, NearestQuery)}, of a snapshot pinned earlier, each row built by
     * {@code extractor} (null: as a map of every column).
     */
    public <R> List<Neighbour<R>> nearest(TableSnapshot snapshot, NearestQuery query, RowExtractor<R> extractor) {
        try (SnapshotVectors<R> vectors = vectors(snapshot, query.column(), extractor)) {
            return vectors.nearest(query);
        }
    }

    /**
     * Opens {@code snapshot} for nearest-neighbour queries of {@code column}: the base table at its
     * version, and the rows above it read once.
     */
    @SuppressWarnings("unchecked")
    <R> SnapshotVectors<R> vectors(TableSnapshot snapshot, String column, RowExtractor<R> extractor) {
        Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot);
        try {
            TableColumns layout = TableColumns.of(base);
            RowExtractor<R> rows =
                    extractor != null ? extractor : (RowExtractor<R>) RowValues.extractor(layout.columns());
            SnapshotVectors.dimensionOf(tableUri, layout, column); // before anything is read
            MergedRows<NearestSearch.Fresh<R>> fresh = new MergedRows<>(layout, NearestSearch.fresh(column, rows));
            WalStorageSchema storage = layout.storage(profile);
            Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
            for (PinnedShard shard : snapshot.shards()) {
                new ShardReader(store, tableUri, storageOptions, shard.shardId(), profile, allocator)
                        .applyTo(fresh, storage, snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L));
            }
            return new SnapshotVectors<>(snapshot, base, tableUri, storageOptions, layout, column, fresh, rows);
        } catch (RuntimeException e) {
            base.close();
            throw e;
        }
    }

    /**
     * The {@code query.k()} live rows of the committed table that best match the query text, best
     * first, each with its BM25 score: every dataset (the base table, each published SSTable above
     * it) searched through its own full-text index, a key's answer being its newest row, and only
     * if that row matches (deleted keys have none).
     *
     * @throws IllegalArgumentException if the table maintains no full-text ({@code INVERTED}) index
     *     on the column
     */
    public List<TextHit<Map<String, Object>>> fullText(TextQuery query) {
        return fullText(pin(ReadMode.COMMITTED), query, null);
    }

    /**
     * As {@link #fullText(TextQuery)}, of a {@link ReadMode#COMMITTED} snapshot pinned earlier, each
     * row built by {@code extractor} (null: as a map of every column).
     *
     * @throws IllegalArgumentException also for a {@link ReadMode#LATEST} snapshot: the WAL tail has
     *     no full-text index to search
     */
    @SuppressWarnings("unchecked")
    public <R> List<TextHit<R>> fullText(TableSnapshot snapshot, TextQuery query, RowExtractor<R> extractor) {
        if (snapshot.mode() != ReadMode.COMMITTED) {
            throw new IllegalArgumentException("a full-text query reads published data only (the WAL tail has no"
                    + " full-text index): pin a COMMITTED snapshot, not " + snapshot.mode());
        }
        try (Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot)) {
            TableColumns layout = TableColumns.of(base);
            String index = fullTextIndex(base, query.column());
            RowExtractor<R> rows =
                    extractor != null ? extractor : (RowExtractor<R>) RowValues.extractor(layout.columns());
            TextSearch<R> search = new TextSearch<>(tableUri, storageOptions, layout, query, rows);
            Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
            List<List<byte[]>> keysAbove = new ArrayList<>();
            forEachSsTableAbove(snapshot, compacted, (uri, ds) -> keysAbove.add(search.keysOf(ds, uri)));
            if (base.getIndexes().stream().anyMatch(i -> i.name().equals(index))) {
                search.searchBase(base, query.k() + TextSearch.distinct(keysAbove));
            } else if (base.countRows() > 0) {
                throw new IllegalStateException("the base table of " + tableUri + " has rows but no full-text index '"
                        + index + "' yet: the compactor builds it after its first merge; try again after it ran");
            }
            int[] next = {0};
            forEachSsTableAbove(
                    snapshot, compacted, (uri, ds) -> search.searchAbove(ds, uri, keysAbove.get(next[0]++)));
            return search.best();
        }
    }

    /** Each SSTable of {@code snapshot} above the base table, per shard by generation, open during the call. */
    private void forEachSsTableAbove(
            TableSnapshot snapshot, Map<UUID, Long> compacted, BiConsumer<String, Dataset> visitor) {
        for (PinnedShard shard : snapshot.shards()) {
            new ShardReader(store, tableUri, storageOptions, shard.shardId(), profile, allocator)
                    .forEachSsTable(snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L), visitor);
        }
    }

    /** The name of the table's maintained full-text index on {@code column}. */
    private String fullTextIndex(Dataset base, String column) {
        return MaintainedIndexes.of(LanceTables.describe(tableUri, base, true)).stream()
                .filter(i ->
                        i.type() == MaintainedIndex.Type.INVERTED && i.column().equals(column))
                .map(MaintainedIndex::name)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the table at " + tableUri
                        + " maintains no full-text (INVERTED) index on column '" + column
                        + "': declare one when the table is created ('index.<name>.type' = 'INVERTED')"));
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
        try (Dataset base = PinnedBase.open(allocator, tableUri, storageOptions, snapshot)) {
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
        DatasetBatches.forEach(base, tableUri, storageOptions, batch -> rows.apply(batch, tableUri, bucket));
        int read = 0;
        for (PinnedShard shard : snapshot.shards()) {
            if (bucket == null || shard.bucket() == bucket.bucket()) {
                new ShardReader(store, tableUri, storageOptions, shard.shardId(), profile, allocator)
                        .applyTo(rows, storage, snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L));
                read++;
            }
        }
        List<R> live = rows.live();
        LOG.debug("Read {} rows of {} ({}, {} shards read)", live.size(), tableUri, snapshot.describe(), read);
        return live;
    }

    /**
     * The table's shards, by UUID order: the folders under {@code _mem_wal/} holding a manifest
     * version (a folder without one has nothing to read; see {@link TableLayout}).
     */
    public Set<UUID> shards() {
        return TableLayout.shards(store);
    }
}
