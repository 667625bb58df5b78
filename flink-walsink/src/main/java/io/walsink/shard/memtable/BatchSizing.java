package io.walsink.shard.memtable;

import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How large a memtable's next open batch is made: the rows of the batch sealed last plus an eighth
 * (ticks seal batches at a steady rate's size), at most a full batch, and its variable-width
 * columns sized for the bytes per row that batch held, plus an eighth. Too small costs doubling
 * copies (string buffers doubled in every batch were 10% of a bulk put); too large holds memory a
 * sealed batch never uses.
 */
final class BatchSizing {
    /** Rows of a memtable's first open batch, before any batch was sealed. */
    static final int FIRST_BATCH_ROWS = 1024;

    private final Schema schema;
    private final int batchMaxRows;
    private int lastRows; // 0 until a batch is sealed
    private final double[] lastBytesPerValue; // per column; 0 for fixed-width ones and until sealed

    BatchSizing(Schema schema, int batchMaxRows) {
        this.schema = schema;
        this.batchMaxRows = batchMaxRows;
        this.lastBytesPerValue = new double[schema.getFields().size()];
    }

    /** A new open batch, sized from the batch sealed last. */
    OpenBatch open(BufferAllocator allocator, PrimaryKeyEncoder keys) {
        int expected = lastRows == 0 ? FIRST_BATCH_ROWS : lastRows + lastRows / 8;
        return new OpenBatch(schema, allocator, Math.max(1, Math.min(batchMaxRows, expected)), lastBytesPerValue, keys);
    }

    /** Records the size of {@code batch}, just sealed (its row count set). */
    void sealed(VectorSchemaRoot batch) {
        lastRows = batch.getRowCount();
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int c = 0; c < lastBytesPerValue.length; c++) {
            FieldVector v = vectors.get(c);
            double d = v instanceof BaseVariableWidthVector variable
                    ? variable.getDensity()
                    : v instanceof BaseLargeVariableWidthVector large ? large.getDensity() : 0;
            lastBytesPerValue[c] = d + d / 8;
        }
    }
}
