package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.scan.SnapshotRows;
import io.walsink.read.scan.SnapshotScan;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.RowData;

/**
 * What one SQL scan reads: the table, how much of it ({@link ReadMode}), which columns, and at
 * most how many rows. Shipped with the job; the snapshot is pinned when the job's enumerator
 * starts ({@link #pin}), so a SELECT sees the table as of execution, not as of planning, and
 * every split (restored ones too) sees that same state.
 *
 * @param lanceStorageOptions lance-core options for the base table and SSTables
 * @param columns the columns to emit, in output order
 * @param limit the most rows to emit, or -1 for all
 * @param splitBaseRows base rows per bounded-scan split (whole fragments are grouped up to it)
 * @param baseFilter a Lance predicate the base rows are scanned with, or null: only ever a
 *     superset of what Flink keeps after the scan, and never applied to the unmerged rows
 * @param version the base table version to read alone (time travel), or null for the table as of
 *     when the scan starts
 */
@Internal
public record TableScan(
        String path,
        S3Options s3,
        Map<String, String> lanceStorageOptions,
        WalSchemaProfile profile,
        ReadMode mode,
        List<String> columns,
        long limit,
        long splitBaseRows,
        String baseFilter,
        Long version)
        implements Serializable {
    /** About one Lance data file's worth (lance-core writes up to 1 M rows per file). */
    public static final long DEFAULT_SPLIT_BASE_ROWS = 1_000_000;

    public TableScan {
        lanceStorageOptions =
                new HashMap<>(lanceStorageOptions); // HashMap: Map.copyOf's class is not stable across JVMs
        columns = List.copyOf(columns);
        if (splitBaseRows < 1) {
            throw new IllegalArgumentException("base rows per split must be positive, was " + splitBaseRows);
        }
    }

    /** A scan with {@link #DEFAULT_SPLIT_BASE_ROWS}. */
    public TableScan(
            String path,
            S3Options s3,
            Map<String, String> lanceStorageOptions,
            WalSchemaProfile profile,
            ReadMode mode,
            List<String> columns,
            long limit) {
        this(path, s3, lanceStorageOptions, profile, mode, columns, limit, DEFAULT_SPLIT_BASE_ROWS, null, null);
    }

    /**
     * Opens {@code split} at its position: base rows streamed a batch at a time, then the
     * unmerged rows it owns, the projected columns, at most {@link #limit} rows per split; rows a
     * copy each, to be kept and compared (see {@link #openForEmit}).
     */
    public SplitRows open(TableScanSplit split) {
        return open(split, new ProjectedRowExtractor(columns));
    }

    /**
     * As {@link #open}, base rows as columnar rows over a heap copy of their batch ({@link
     * ProjectedRowExtractor#columnar}): what the source emits, cheaper per row, values owned alike.
     */
    SplitRows openForEmit(TableScanSplit split) {
        return open(split, ProjectedRowExtractor.columnar(columns));
    }

    private SplitRows open(TableScanSplit split, ProjectedRowExtractor extractor) {
        BufferAllocator allocator = new RootAllocator();
        ObjectStore store = ObjectStores.open(path, s3);
        try {
            SnapshotRows<RowData> rows = snapshotScan(store, allocator)
                    .open(split.snapshot(), split.part(), columns, extractor, baseFilter, split.position());
            return new SplitRows(split, rows, store, allocator, limit);
        } catch (RuntimeException e) {
            try (allocator;
                    store) {
                throw e;
            }
        }
    }

    /** Fixes the versions every split of this scan reads, once, when the scan starts. */
    public TableSnapshot pin() {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = ObjectStores.open(path, s3)) {
            SnapshotReader reader = reader(store, allocator);
            return version == null ? reader.pin(mode) : reader.pinVersion(version);
        }
    }

    /**
     * The bounded scan's splits: the base table's fragments in groups of about {@link
     * #splitBaseRows} rows, each without the keys the shards hold above the base, then one split
     * per bucket for its shard's rows above the base (one for every shard when the table cannot
     * be read by bucket). Parallelism follows the base table's size, not the bucket count.
     */
    public List<TableScanSplit> scanSplits(TableSnapshot snapshot) {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = ObjectStores.open(path, s3)) {
            List<TableScanSplit> splits = new ArrayList<>();
            List<List<Integer>> groups = snapshotScan(store, allocator).fragmentGroups(snapshot, splitBaseRows);
            for (int i = 0; i < groups.size(); i++) {
                splits.add(TableScanSplit.baseFragments(i, groups.get(i), snapshot));
            }
            Optional<List<BucketSelection>> buckets = reader(store, allocator).bucketsReadSeparately(snapshot);
            if (buckets.isPresent()) {
                buckets.get().forEach(bucket -> splits.add(TableScanSplit.unmerged(bucket, snapshot)));
            } else {
                splits.add(TableScanSplit.unmerged(null, snapshot));
            }
            return splits;
        }
    }

    /**
     * One split per bucket when the table is bucket-sharded and every shard of {@code snapshot}
     * names its bucket, the whole table as one split otherwise: what the continuous read needs,
     * whose split emits a key's snapshot row and then its changes. Each split carries the part of
     * the snapshot it reads.
     */
    public List<TableScanSplit> bucketSplits(TableSnapshot snapshot) {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = ObjectStores.open(path, s3)) {
            return reader(store, allocator)
                    .bucketsReadSeparately(snapshot)
                    .map(buckets -> buckets.stream()
                            .map(bucket -> TableScanSplit.of(bucket, snapshot))
                            .toList())
                    .orElse(List.of(TableScanSplit.wholeTable(snapshot)));
        }
    }

    private SnapshotScan snapshotScan(ObjectStore store, BufferAllocator allocator) {
        return new SnapshotScan(location(store), profile, allocator, SnapshotScan.DEFAULT_BATCH_SIZE);
    }

    private SnapshotReader reader(ObjectStore store, BufferAllocator allocator) {
        return new SnapshotReader(location(store), profile, allocator);
    }

    /** The table as {@code store} (opened on {@link #path}, closed by the caller) and lance-core reach it. */
    public TableLocation location(ObjectStore store) {
        return new TableLocation(store, StorageLocation.parse(path).lanceUri(), lanceStorageOptions);
    }

    @Override
    public String toString() {
        return "TableScan[" + path + ", " + mode + ", columns=" + columns + (limit >= 0 ? ", limit=" + limit : "")
                + ", splitBaseRows=" + splitBaseRows + (baseFilter == null ? "" : ", baseFilter=" + baseFilter) + "]";
    }
}
