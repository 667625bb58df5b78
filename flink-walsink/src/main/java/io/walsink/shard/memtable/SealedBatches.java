package io.walsink.shard.memtable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A memtable's sealed batches, oldest first, and how far the WAL has them: the first
 * {@code durableBatches} are in WAL entries, the rest are pending. Sealed batches never change,
 * which is what lets an append encode them, or lance-core write them, on another thread.
 */
final class SealedBatches implements AutoCloseable {
    private final List<VectorSchemaRoot> batches = new ArrayList<>();
    private final List<Long> startRows = new ArrayList<>();
    /** Buffer bytes of each batch, taken once: sealed batches never change size. */
    private final List<Long> batchBytes = new ArrayList<>();

    private long rows;
    private long bytes;
    private long durableBytes;
    private int durableBatches;
    private long durableRows;
    private long firstWalPosition;
    private long lastWalPosition;

    /** Takes {@code batch} (row count set) as the newest sealed batch; its rows follow the others'. */
    void add(VectorSchemaRoot batch) {
        startRows.add(rows);
        batches.add(batch);
        rows += batch.getRowCount();
        long size = bufferBytes(batch);
        batchBytes.add(size);
        bytes += size;
    }

    /**
     * Takes the buffers of {@code stored}, a batch in {@code schema} (a replayed WAL entry's), as
     * the newest sealed batch without copying its rows; {@code stored} is left empty.
     */
    VectorSchemaRoot addTransferred(Schema schema, BufferAllocator allocator, VectorSchemaRoot stored) {
        int rows = stored.getRowCount();
        List<FieldVector> from = stored.getFieldVectors();
        List<FieldVector> vectors = new ArrayList<>(from.size());
        try {
            for (int c = 0; c < schema.getFields().size(); c++) {
                FieldVector target = schema.getFields().get(c).createVector(allocator);
                vectors.add(target);
                from.get(c).makeTransferPair(target).transfer();
            }
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot batch = new VectorSchemaRoot(schema.getFields(), vectors, rows);
        add(batch);
        return batch;
    }

    int count() {
        return batches.size();
    }

    VectorSchemaRoot get(int i) {
        return batches.get(i);
    }

    List<VectorSchemaRoot> all() {
        return Collections.unmodifiableList(batches);
    }

    long startRow(int i) {
        return startRows.get(i);
    }

    /** Rows in all sealed batches. */
    long rows() {
        return rows;
    }

    /** Buffer bytes of all sealed batches. */
    long bytes() {
        return bytes;
    }

    List<VectorSchemaRoot> pending() {
        return Collections.unmodifiableList(batches.subList(durableBatches, batches.size()));
    }

    /** Kept as a difference of running sums: a writer asks every 64th row, and a memtable may hold hundreds of batches. */
    long pendingBytes() {
        return bytes - durableBytes;
    }

    long durableRows() {
        return durableRows;
    }

    /** Records that the first {@code count} pending batches are now in WAL entry {@code position}. */
    void markDurable(int count, long position) {
        if (count <= 0 || durableBatches + count > batches.size()) {
            throw new IllegalArgumentException(
                    "cannot mark " + count + " batches durable: " + (batches.size() - durableBatches) + " pending");
        }
        for (int i = 0; i < count; i++) {
            durableRows += batches.get(durableBatches + i).getRowCount();
            durableBytes += batchBytes.get(durableBatches + i);
        }
        durableBatches += count;
        if (firstWalPosition == 0) {
            firstWalPosition = position;
        }
        lastWalPosition = position;
    }

    long firstWalPosition() {
        return firstWalPosition;
    }

    long lastWalPosition() {
        return lastWalPosition;
    }

    @Override
    public void close() {
        for (VectorSchemaRoot batch : batches) {
            batch.close();
        }
        batches.clear();
    }

    static long bufferBytes(VectorSchemaRoot root) {
        long sum = 0;
        for (FieldVector v : root.getFieldVectors()) {
            sum += v.getBufferSize();
        }
        return sum;
    }
}
