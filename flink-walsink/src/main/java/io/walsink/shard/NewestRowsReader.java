package io.walsink.shard;

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
 * insert order; every row when the table has no key. A batch whose rows all survive is handed
 * over without copying (its buffers are shared, which needs allocators of one root); otherwise
 * the surviving rows are copied into a new batch run by run ({@link MarkedRowsCopy}). The
 * memtable stays owned by the caller. Each batch handed out is shown to an observer first, so the
 * SSTable's key index sees exactly the rows written, in their order, without reading them back.
 */
final class NewestRowsReader extends ArrowReader {
    private final Memtable memtable;
    private final Schema schema;
    private final boolean everyRow;
    private final Consumer<VectorSchemaRoot> observer;
    private boolean[] newest = new boolean[0]; // which rows of the current batch are kept
    private int nextBatch;
    private long rowsRead;
    private long bytesRead;

    /**
     * @param everyRow hand out every row, superseded ones included (for comparisons)
     * @param observer sees each batch before it is handed out
     */
    NewestRowsReader(
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
    NewestRowsReader(BufferAllocator allocator, Memtable memtable, Schema schema, boolean everyRow) {
        this(allocator, memtable, schema, everyRow, batch -> {});
    }

    /** The newest row of each key (every row of an append-only table). */
    NewestRowsReader(BufferAllocator allocator, Memtable memtable, Schema schema) {
        this(allocator, memtable, schema, false);
    }

    /** Rows handed out so far. */
    long rowsRead() {
        return rowsRead;
    }

    @Override
    public boolean loadNextBatch() throws java.io.IOException {
        prepareLoadNextBatch();
        List<VectorSchemaRoot> batches = memtable.sealedBatches();
        while (nextBatch < batches.size()) {
            int i = nextBatch++;
            VectorSchemaRoot source = batches.get(i);
            int rows = source.getRowCount();
            if (newest.length < rows) {
                newest = new boolean[rows];
            }
            int kept;
            if (everyRow) {
                Arrays.fill(newest, 0, rows, true);
                kept = rows;
            } else {
                kept = memtable.markNewest(i, newest);
            }
            if (kept == 0) {
                continue;
            }
            if (kept == rows && sharesRoot(source)) {
                loadRecordBatch(new VectorUnloader(source).getRecordBatch());
            } else {
                MarkedRowsCopy.copy(source, newest, getVectorSchemaRoot());
            }
            observer.accept(getVectorSchemaRoot());
            rowsRead += kept;
            bytesRead += getVectorSchemaRoot().getFieldVectors().stream()
                    .mapToLong(FieldVector::getBufferSize)
                    .sum();
            return true;
        }
        return false;
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
