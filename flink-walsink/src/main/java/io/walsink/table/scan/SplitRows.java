package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.scan.SnapshotRows;
import io.walsink.storage.ObjectStore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.data.RowData;

/**
 * A split being read, one row at a time, with what its read holds open (the base table, an object
 * store, an allocator) until it is closed.
 */
@Internal
public final class SplitRows implements AutoCloseable {
    private final TableScanSplit split;
    private final SnapshotRows<RowData> rows;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final long limit;

    SplitRows(
            TableScanSplit split,
            SnapshotRows<RowData> rows,
            ObjectStore store,
            BufferAllocator allocator,
            long limit) {
        this.split = split;
        this.rows = rows;
        this.store = store;
        this.allocator = allocator;
        this.limit = limit;
    }

    /** The next row, or null when the split is read (or its limit reached). */
    public RowData next() {
        // Per split: Flink keeps its own LIMIT above the scan, so each split may stop early.
        if (limit >= 0 && rows.position().emitted() >= limit) {
            return null;
        }
        return rows.next();
    }

    /** The split as read so far: restoring it resumes after the last row {@link #next} returned. */
    public TableScanSplit state() {
        return split.at(rows.position());
    }

    @Override
    public void close() {
        try (BufferAllocator a = allocator;
                ObjectStore s = store) {
            rows.close();
        }
    }
}
