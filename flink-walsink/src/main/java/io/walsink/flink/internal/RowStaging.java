package io.walsink.flink.internal;

import io.walsink.flink.convert.RowDataArrowWriter;
import io.walsink.shard.TableContext;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Converts each incoming row into an Arrow batch in the table's schema and checks its key, before
 * any shard is touched: a bad row must fail before its shard is claimed.
 */
final class RowStaging implements AutoCloseable {
    private static final int ROWS = 512;

    private final RowDataArrowWriter writer;
    private final TableContext table;
    private final VectorSchemaRoot batch;
    private int rows;

    RowStaging(RowType rowType, TableContext table, BufferAllocator allocator) {
        this.writer = RowDataArrowWriter.create(rowType, table.table().schema());
        this.table = table;
        this.batch = VectorSchemaRoot.create(table.table().schema(), allocator);
        batch.allocateNew();
    }

    /** Stages {@code row}; its index in {@link #batch()} is valid until the next call. */
    int stage(RowData row) {
        if (rows == ROWS) {
            batch.clear();
            batch.allocateNew();
            rows = 0;
        }
        int index = rows++;
        writer.write(row, batch, index);
        batch.setRowCount(index + 1);
        table.validator().checkKeysNotNull(batch, index, index + 1);
        return index;
    }

    VectorSchemaRoot batch() {
        return batch;
    }

    @Override
    public void close() {
        batch.close();
    }
}
