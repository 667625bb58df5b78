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
 * How large a memtable's next open batch is made. A batch sealed full is followed by a full one;
 * a batch sealed part-full (a tick, so the WAL gets what arrived) ends a run of batches, and the
 * next batch is sized for that run's rows plus an eighth, at most a full batch. Variable-width
 * columns are sized for the bytes per row the last batch held, plus an eighth. Both are rounded up
 * to an eighth of a power of two, so that buffers come in few sizes and released ones fit the next
 * batches (fresh memory costs a page fault per 4 KiB at first touch). Powers of two wasted up to
 * half of a part-full batch: with 128 shards a subtask, whose batches are mostly part-full, a
 * writer held 1.5 GB for a 1 GiB budget and took fresh memory for most batches. Too small costs doubling
 * copies (sized by a tick's remainder, batches were regrown twice per tick: 15% of the writer
 * thread); too large holds memory a sealed batch never uses. A shard's next memtable continues
 * from its frozen one's sizing: at 128 shards a subtask memtables freeze often, and each first
 * batch regrown from {@link #FIRST_BATCH_ROWS} was a copy into fresh memory.
 */
final class BatchSizing {
    /** Rows of a memtable's first open batch, before any batch was sealed. */
    static final int FIRST_BATCH_ROWS = 1024;

    private final Schema schema;
    private final int batchMaxRows;
    private int nextRows;
    private long runRows; // rows of the full batches sealed since the last part-full one
    private final double[] lastBytesPerValue; // per column; 0 for fixed-width ones and until sealed

    BatchSizing(Schema schema, int batchMaxRows) {
        this.schema = schema;
        this.batchMaxRows = batchMaxRows;
        this.nextRows = rowsFor(FIRST_BATCH_ROWS, batchMaxRows);
        this.lastBytesPerValue = new double[schema.getFields().size()];
    }

    /** A copy of {@code other}: the next batch sized as {@code other}'s next batch would be. */
    BatchSizing(BatchSizing other) {
        this.schema = other.schema;
        this.batchMaxRows = other.batchMaxRows;
        this.nextRows = other.nextRows;
        this.runRows = other.runRows;
        this.lastBytesPerValue = other.lastBytesPerValue.clone();
    }

    /** A new open batch, sized from the batch sealed last. */
    OpenBatch open(BufferAllocator allocator, PrimaryKeyEncoder keys) {
        return new OpenBatch(schema, allocator, nextRows, lastBytesPerValue, keys);
    }

    /** {@code rows} rounded up to an eighth of a power of two, at least 1 and at most {@code max}. */
    static int rowsFor(long rows, int max) {
        if (rows <= 8) {
            return (int) Math.max(1, Math.min(max, rows));
        }
        long eighth = Long.highestOneBit(rows) >>> 3;
        return (int) Math.min(max, (rows + eighth - 1) / eighth * eighth);
    }

    /** {@code bytes} rounded up to an eighth of a power of two (few sizes, at most an eighth more); 0 stays 0. */
    static double bytesFor(double bytes) {
        if (bytes <= 0) {
            return 0;
        }
        double octave = Math.pow(2, Math.floor(Math.log(bytes) / Math.log(2)));
        return octave * Math.ceil(bytes / octave * 8) / 8;
    }

    /** Records the size of {@code batch}, just sealed (its row count set). */
    void sealed(VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        if (rows >= batchMaxRows) {
            runRows += rows;
            nextRows = batchMaxRows;
        } else {
            long run = runRows + rows;
            runRows = 0;
            nextRows = rowsFor(run + run / 8, batchMaxRows);
        }
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int c = 0; c < lastBytesPerValue.length; c++) {
            FieldVector v = vectors.get(c);
            double d = v instanceof BaseVariableWidthVector variable
                    ? variable.getDensity()
                    : v instanceof BaseLargeVariableWidthVector large ? large.getDensity() : 0;
            lastBytesPerValue[c] = bytesFor(d + d / 8);
        }
    }
}
