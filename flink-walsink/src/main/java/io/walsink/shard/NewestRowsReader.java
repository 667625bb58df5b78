package io.walsink.shard;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.List;
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
 * the surviving rows are copied into a new batch. The memtable stays owned by the caller.
 */
final class NewestRowsReader extends ArrowReader {
    private final Memtable memtable;
    private final Schema schema;
    private final PrimaryKeyEncoder keys; // null: append-only, every row survives
    private final KeyBuffer key = new KeyBuffer();
    private int nextBatch;
    private long rowsRead;
    private long bytesRead;

    NewestRowsReader(BufferAllocator allocator, Memtable memtable, Schema schema, PrimaryKeyEncoder keys) {
        super(allocator);
        this.memtable = memtable;
        this.schema = schema;
        this.keys = keys;
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
            int[] rows = newestRows(source, memtable.batchStartRow(i));
            if (rows.length == 0) {
                continue;
            }
            if (rows.length == source.getRowCount() && sharesRoot(source)) {
                loadRecordBatch(new VectorUnloader(source).getRecordBatch());
            } else {
                copyRows(source, rows, getVectorSchemaRoot());
            }
            rowsRead += rows.length;
            bytesRead += getVectorSchemaRoot().getFieldVectors().stream()
                    .mapToLong(FieldVector::getBufferSize)
                    .sum();
            return true;
        }
        return false;
    }

    private int[] newestRows(VectorSchemaRoot batch, long firstRow) {
        int count = batch.getRowCount();
        int[] rows = new int[count];
        int kept = 0;
        FieldVector[] keyColumns = keys == null ? null : keys.keyColumns(batch);
        for (int r = 0; r < count; r++) {
            if (keys == null) {
                rows[kept++] = r;
                continue;
            }
            keys.encode(keyColumns, r, key);
            if (memtable.isNewest(firstRow + r, key.array(), key.length())) {
                rows[kept++] = r;
            }
        }
        return kept == count ? rows : java.util.Arrays.copyOf(rows, kept);
    }

    private boolean sharesRoot(VectorSchemaRoot source) {
        return source.getFieldVectors().stream().allMatch(v -> v.getAllocator().getRoot() == allocator.getRoot());
    }

    private static void copyRows(VectorSchemaRoot source, int[] rows, VectorSchemaRoot target) {
        for (int c = 0; c < target.getFieldVectors().size(); c++) {
            FieldVector to = target.getVector(c);
            FieldVector from = source.getVector(c);
            to.clear();
            to.setInitialCapacity(rows.length);
            to.allocateNew();
            for (int r = 0; r < rows.length; r++) {
                to.copyFromSafe(rows[r], r, from);
            }
        }
        target.setRowCount(rows.length);
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
