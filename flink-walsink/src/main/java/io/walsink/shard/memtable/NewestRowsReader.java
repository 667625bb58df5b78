package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of a frozen memtable that are the newest of their key, batch by batch in forward
 * insert order; every row when the table has no key. A batch of at least {@link #SHARE_ROWS} rows
 * that all survive is handed over without copying (its buffers are shared, which needs allocators
 * of one root); otherwise the surviving rows are copied run by run ({@link MarkedRowsCopy}), those
 * of consecutive batches gathered into one batch of up to {@link #GATHER_ROWS} rows. The
 * memtable stays owned by the caller. Each batch handed out is shown to an observer first, so the
 * SSTable's key index sees exactly the rows written, in their order, without reading them back.
 */
@Internal
public final class NewestRowsReader extends ArrowReader {
    /**
     * The most rows gathered from copied batches into one batch handed out: a memtable's default
     * batch size, so the copy holds about one sealed batch of memory, as a copy of one batch did.
     */
    public static final int GATHER_ROWS = Memtable.DEFAULT_BATCH_MAX_ROWS;

    /**
     * Rows from which a batch whose rows all survive is handed over as it is; a smaller one is
     * gathered with its neighbours, since its copy costs less than lance-core pulling one more batch.
     */
    public static final int SHARE_ROWS = GATHER_ROWS / 2;

    private final Memtable memtable;
    private final Schema schema;
    private final boolean everyRow;
    private final Consumer<VectorSchemaRoot> observer;
    /** Which rows of sealed batch {@link #markedBatch} are kept, and how many ({@link #markedRows}). */
    private boolean[] marks;

    private int markedBatch = -1;
    private int markedRows;
    private int nextBatch;
    private long rowsRead;
    private long bytesRead;

    /**
     * @param everyRow hand out every row, superseded ones included (for comparisons)
     * @param observer sees each batch before it is handed out
     */
    public NewestRowsReader(
            BufferAllocator allocator,
            Memtable memtable,
            Schema schema,
            boolean everyRow,
            Consumer<VectorSchemaRoot> observer) {
        super(allocator);
        this.memtable = memtable;
        this.schema = schema;
        this.everyRow = everyRow;
        this.observer = observer;
    }

    /** @param everyRow hand out every row, superseded ones included (for comparisons) */
    public NewestRowsReader(BufferAllocator allocator, Memtable memtable, Schema schema, boolean everyRow) {
        this(allocator, memtable, schema, everyRow, batch -> {});
    }

    /** The newest row of each key (every row of an append-only table). */
    public NewestRowsReader(BufferAllocator allocator, Memtable memtable, Schema schema) {
        this(allocator, memtable, schema, false);
    }

    /** Rows handed out so far. */
    public long rowsRead() {
        return rowsRead;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
        prepareLoadNextBatch();
        List<VectorSchemaRoot> batches = memtable.sealedBatches();
        List<VectorSchemaRoot> gathered = new ArrayList<>();
        List<boolean[]> gatheredMarks = new ArrayList<>();
        int gatheredRows = 0;
        while (nextBatch < batches.size()) {
            VectorSchemaRoot source = batches.get(nextBatch);
            int kept = mark(nextBatch, source.getRowCount());
            if (kept == 0) {
                nextBatch++;
                continue;
            }
            if (kept == source.getRowCount() && kept >= SHARE_ROWS && sharesRoot(source)) {
                if (!gathered.isEmpty()) {
                    break; // hand out what was gathered first; this batch goes next, as it is
                }
                nextBatch++;
                loadRecordBatch(new VectorUnloader(source).getRecordBatch());
                return handOut(kept);
            }
            if (!gathered.isEmpty() && gatheredRows + kept > GATHER_ROWS) {
                break;
            }
            gathered.add(source);
            gatheredMarks.add(marks);
            gatheredRows += kept;
            markedBatch = -1; // the marks now belong to the gathered list
            nextBatch++;
        }
        if (gathered.isEmpty()) {
            return false;
        }
        MarkedRowsCopy.copy(gathered, gatheredMarks, getVectorSchemaRoot());
        return handOut(gatheredRows);
    }

    /** Marks in {@link #marks} the rows of sealed batch {@code i} that are kept; how many. */
    private int mark(int i, int rows) {
        if (markedBatch == i) {
            return markedRows;
        }
        marks = new boolean[rows];
        if (everyRow) {
            Arrays.fill(marks, true);
            markedRows = rows;
        } else {
            markedRows = memtable.markNewest(i, marks);
        }
        markedBatch = i;
        return markedRows;
    }

    private boolean handOut(int kept) throws java.io.IOException {
        observer.accept(getVectorSchemaRoot());
        rowsRead += kept;
        bytesRead += getVectorSchemaRoot().getFieldVectors().stream()
                .mapToLong(FieldVector::getBufferSize)
                .sum();
        return true;
    }

    private boolean sharesRoot(VectorSchemaRoot source) {
        return source.getFieldVectors().stream().allMatch(v -> v.getAllocator().getRoot() == allocator.getRoot());
    }

    @Override
    public long bytesRead() {
        return bytesRead;
    }

    @Override
    protected void closeReadSource() {
        // the memtable belongs to the caller
    }

    @Override
    protected Schema readSchema() {
        return schema;
    }
}
