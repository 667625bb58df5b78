package io.walsink.read.lookup;

import io.walsink.annotation.Internal;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.sharding.BucketAssigner;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.CompactedSsTables;
import io.walsink.read.snapshot.DatasetBatches;
import io.walsink.read.snapshot.LookupScans;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.ShardReader;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableColumns;
import io.walsink.storage.ObjectStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The newest committed row of one primary key, for lookup joins: what a {@link
 * ReadMode#COMMITTED} read of the table would return for that key, reading only what the key
 * needs. A key lives in one bucket, so only that bucket's shard is read ({@link ShardsByBucket}),
 * and every dataset (the
 * base table, then the shard's SSTables above what the base holds, by generation) is scanned
 * with a filter on the key that lance-core can answer from a scalar index.
 *
 * <p>Opened datasets stay open between lookups. Before a lookup the shard's manifest version and
 * then the base version are checked (in that order, as {@link SnapshotReader#pin} reads them, so a
 * compaction in between cannot hide a row) and whatever changed is opened again; with a refresh
 * interval they are checked at most that often, and a lookup may be that much behind. Not
 * thread-safe: one per lookup function instance.
 */
@Internal
public final class KeyLookup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyLookup.class);

    private final TableLocation location;
    private final String tableUri;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final long refreshNanos;

    private final Dataset base;
    private TableColumns layout;
    private Map<UUID, Long> compacted;
    private long baseCheckedAt;
    private boolean baseDue;
    private final String bucketColumn; // null unless bucket-sharded on a key column
    private final boolean anyBucket;
    private final int numBuckets;
    private final PrimaryKeyEncoder keys;
    private final ShardsByBucket shardsByBucket;
    private final Map<UUID, OpenShard> shards = new HashMap<>();
    private final Map<UUID, Long> shardCheckedAt = new HashMap<>();
    private final KeyBuffer key = new KeyBuffer();
    private final LookupScans scans;

    /**
     * @param location the table: its store (manifests), base table and SSTables
     * @param refreshInterval how long opened datasets are used without checking for newer
     *     versions; zero checks before every lookup
     * @throws IllegalArgumentException if the table has no primary key
     */
    public KeyLookup(TableLocation location, BufferAllocator allocator, Duration refreshInterval) {
        this(location, allocator, refreshInterval, new LookupScans());
    }

    /** @param scans where the lance-core scans of the lookups are counted (may outlive this lookup) */
    public KeyLookup(TableLocation location, BufferAllocator allocator, Duration refreshInterval, LookupScans scans) {
        this.scans = Objects.requireNonNull(scans, "scans");
        this.location = Objects.requireNonNull(location, "location");
        this.tableUri = location.uri();
        this.store = location.store();
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.refreshNanos = refreshInterval.toNanos();
        this.shardsByBucket = new ShardsByBucket(
                store,
                // COMMITTED reads no WAL entry, so the profile (the entry schema) plays no part
                shard -> new ShardReader(location, shard, WalSchemaProfile.SPEC, allocator).pin(ReadMode.COMMITTED),
                refreshNanos);
        this.base = location.openBase(allocator);
        try {
            TableInfo info = LanceTables.describe(tableUri, base, true);
            if (info.primaryKey().isEmpty()) {
                throw new IllegalArgumentException(
                        "the table at " + tableUri + " has no primary key: rows cannot be looked up by key");
            }
            TableSharding sharding = info.sharding().sharding();
            boolean bucketed = sharding.transform() == ShardTransform.BUCKET;
            // Sharded on a column outside the key, a key's bucket cannot be told: every shard is read.
            this.bucketColumn = bucketed
                            && info.primaryKey()
                                    .contains(sharding.sourceColumn().orElseThrow())
                    ? sharding.sourceColumn().get()
                    : null;
            this.anyBucket = bucketed && bucketColumn == null;
            this.numBuckets = bucketed ? sharding.numBuckets().orElseThrow() : 0;
            this.layout = TableColumns.of(base);
            this.keys = new PrimaryKeyEncoder(layout.keyFields());
            this.compacted = CompactedSsTables.of(base, tableUri);
            this.baseCheckedAt = System.nanoTime();
        } catch (RuntimeException e) {
            base.close();
            throw e;
        }
    }

    /** The primary-key columns, in key order: what {@link #lookup} needs of a key. */
    public List<String> primaryKey() {
        return layout.primaryKey();
    }

    public Schema schema() {
        return layout.schema();
    }

    /** The bucket count of a table bucket-sharded on a key column; empty otherwise (every shard is read). */
    public OptionalInt numBuckets() {
        return bucketColumn == null ? OptionalInt.empty() : OptionalInt.of(numBuckets);
    }

    /**
     * The newest committed row of the key in row {@code row} of {@code keys} (which holds the
     * primary-key columns by name, typed as the table's), built by {@code extractor}; empty when
     * the key has no row or its newest row is a delete.
     */
    public <R> Optional<R> lookup(VectorSchemaRoot keyBatch, int row, RowExtractor<R> extractor) {
        FieldVector[] keyColumns = keys.keyColumns(keyBatch);
        keys.encode(keyColumns, row, key);
        List<OpenShard> read = shardsOf(keyBatch, row);
        refreshBase(); // after the shards' manifests: see SnapshotReader#merge
        String filter = KeyFilter.of(keyColumns, row).orElse(null);
        MergedRows<R> rows = new MergedRows<>(layout, extractor, key);
        DatasetBatches.forEach(base, tableUri, location, filter, scans, batch -> rows.apply(batch, tableUri));
        for (OpenShard shard : read) {
            long through = compacted.getOrDefault(shard.shardId(), 0L);
            for (OpenShard.Generation g : shard.generations()) {
                if (g.generation() > through) {
                    DatasetBatches.forEach(
                            g.dataset(), g.uri(), location, filter, scans, batch -> rows.apply(batch, g.uri()));
                }
            }
        }
        List<R> live = rows.live();
        return live.isEmpty() ? Optional.empty() : Optional.of(live.get(0));
    }

    /** The lance-core scans of the lookups so far. */
    public LookupScans scans() {
        return scans;
    }

    /** The shards that may hold the key, each opened at its current manifest version. */
    private List<OpenShard> shardsOf(VectorSchemaRoot keyBatch, int row) {
        int bucket = anyBucket ? ShardsByBucket.ANY : PinnedShard.NO_BUCKET;
        if (bucketColumn != null) {
            FieldVector column = keyBatch.getVector(bucketColumn);
            bucket = BucketAssigner.of(column.getField().getType(), numBuckets).bucketOf(column, row);
        }
        return shardsByBucket.of(bucket).stream().map(this::refreshed).toList();
    }

    private OpenShard refreshed(UUID shardId) {
        OpenShard open = shards.get(shardId);
        long now = System.nanoTime();
        if (open != null) {
            if (now - shardCheckedAt.get(shardId) < refreshNanos) {
                return open;
            }
            shardCheckedAt.put(shardId, now);
            if (open.current(store)) {
                return open;
            }
        }
        OpenShard reopened = OpenShard.open(location, allocator, shardId);
        if (open != null) {
            LOG.debug(
                    "Shard {} of {}: manifest version {} -> {}",
                    shardId,
                    tableUri,
                    open.manifestVersion(),
                    reopened.manifestVersion());
            open.close();
        }
        shards.put(shardId, reopened);
        shardCheckedAt.put(shardId, now);
        baseDue = true; // a newer manifest may have dropped SSTables that only a newer base holds
        return reopened;
    }

    private void refreshBase() {
        long now = System.nanoTime();
        if (!baseDue && now - baseCheckedAt < refreshNanos) {
            return;
        }
        baseDue = false;
        baseCheckedAt = now;
        long version = base.version();
        if (base.latestVersion() != version) {
            base.checkoutLatest();
            layout = TableColumns.of(base);
            compacted = CompactedSsTables.of(base, tableUri);
            LOG.debug("Base table {}: version {} -> {}", tableUri, version, base.version());
        }
    }

    @Override
    public void close() {
        shards.values().forEach(OpenShard::close);
        shards.clear();
        base.close();
    }
}
