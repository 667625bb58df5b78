package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.SnapshotRows;
import io.walsink.read.SnapshotScan;
import io.walsink.read.TableReader;
import io.walsink.read.TableSnapshot;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 */
@Internal
public record TableScan(
        String path,
        S3Options s3,
        Map<String, String> lanceStorageOptions,
        WalSchemaProfile profile,
        ReadMode mode,
        List<String> columns,
        long limit)
        implements Serializable {

    public TableScan {
        lanceStorageOptions =
                new HashMap<>(lanceStorageOptions); // HashMap: Map.copyOf's class is not stable across JVMs
        columns = List.copyOf(columns);
    }

    /**
     * Opens {@code split} at its position: base rows streamed a batch at a time, then the
     * unmerged rows it owns, the projected columns, at most {@link #limit} rows per split.
     */
    public SplitRows open(TableScanSplit split) {
        BufferAllocator allocator = new RootAllocator();
        ObjectStore store = ObjectStores.open(path, s3);
        try {
            SnapshotRows<RowData> rows = new SnapshotScan(
                            StorageLocation.parse(path).lanceUri(),
                            lanceStorageOptions,
                            store,
                            profile,
                            allocator,
                            SnapshotScan.DEFAULT_BATCH_SIZE)
                    .open(
                            split.snapshot(),
                            split.part(),
                            columns,
                            new ProjectedRowExtractor(columns),
                            split.position());
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
            return reader(store, allocator).pin(mode);
        }
    }

    /**
     * One split per bucket when the table is bucket-sharded and every shard of {@code snapshot}
     * names its bucket, so the scan runs in parallel; the whole table as one split otherwise.
     * Each split carries the part of the snapshot it reads.
     */
    public List<TableScanSplit> splits(TableSnapshot snapshot) {
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

    private TableReader reader(ObjectStore store, BufferAllocator allocator) {
        return new TableReader(StorageLocation.parse(path).lanceUri(), lanceStorageOptions, store, profile, allocator);
    }

    @Override
    public String toString() {
        return "TableScan[" + path + ", " + mode + ", columns=" + columns + (limit >= 0 ? ", limit=" + limit : "")
                + "]";
    }
}
