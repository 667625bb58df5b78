package io.walsink.flink.internal;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.shard.TableContext;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;

/**
 * Converts a row into an Arrow batch of its own and checks its key, without touching any shard:
 * the first row for a bucket is checked here before the bucket's shard is claimed (a bad row
 * must fail before a claim fences another writer). Later rows go straight into the memtable
 * ({@link RowDataInput}).
 */
final class RowStaging implements AutoCloseable {
    private static final int ROWS = 16; // only first rows of buckets come here: keep the batch small

    private final RowDataArrowWriter writer;
    private final TableContext table;
    private final VectorSchemaRoot batch;
    private int rows;

    RowStaging(RowDataArrowWriter writer, TableContext table, BufferAllocator allocator) {
        this.writer = writer;
        this.table = table;
        this.batch = VectorSchemaRoot.create(table.inputSchema(), allocator);
        batch.getFieldVectors().forEach(v -> v.setInitialCapacity(ROWS));
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
