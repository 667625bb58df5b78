package io.walsink.bench.engine;

import io.walsink.bench.support.SealedBatchesReader;
import io.walsink.format.table.LanceTables;
import io.walsink.shard.OffHeapAllocators;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.memwal.ShardWriter;
import org.lance.memwal.ShardWriterConfig;

/**
 * lance-core 7.0.0's replay of its own WAL: a durable writer puts the rows, {@code entryRows} a
 * put (so one WAL entry each, as walsink's replayed shard has), and is abandoned without
 * {@code close()}, which would write its memtable as an SSTable and leave nothing to replay; a new
 * writer of the same shard id then replays every entry while it opens, fencing the first. An abandoned writer keeps
 * its memory until the process ends, as a crashed one would have released it; the Arrow buffers
 * it still references are accounted to {@link #ABANDONED}, which is never closed, so that the
 * caller's allocator closes clean.
 */
final class LanceCoreReplayRun {
    private static final BufferAllocator ABANDONED = OffHeapAllocators.root(Long.MAX_VALUE);

    /** One round: the WAL's bytes, the reopen's time and the rows its memtable held afterwards. */
    record Replayed(long walBytes, long nanos, long rows) {}

    private LanceCoreReplayRun() {}

    /**
     * Writes the rows into a new shard and abandons its writer, then times a new writer of the
     * shard while it opens and replays; that one is closed (writing its memtable as an SSTable),
     * so a round leaves no writer running but the fenced, abandoned one.
     */
    static Replayed run(BenchTable table, List<VectorSchemaRoot> batches, int entryRows) {
        long rows = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
        String shardId = UUID.randomUUID().toString();
        long walBytes = writeAndAbandon(table, shardId, batches, rows, entryRows);
        try (Dataset ds = LanceTables.openDataset(ABANDONED, table.uri(), table.storageOptions())) {
            long start = System.nanoTime();
            try (ShardWriter writer = ds.memWalWriter(shardId, config(rows))) {
                long nanos = System.nanoTime() - start;
                return new Replayed(walBytes, nanos, writer.memtableStats().rowCount());
            }
        }
    }

    private static long writeAndAbandon(
            BenchTable table, String shardId, List<VectorSchemaRoot> batches, long rows, int entryRows) {
        try (Dataset ds = LanceTables.openDataset(ABANDONED, table.uri(), table.storageOptions())) {
            Schema schema = ds.getSchema(); // carries the key's field metadata lance-core requires
            ShardWriter writer = ds.memWalWriter(shardId, config(rows));
            int batchRows = batches.get(0).getRowCount();
            int perPut = Math.max(1, entryRows / batchRows);
            for (int from = 0; from < batches.size(); from += perPut) {
                List<VectorSchemaRoot> put = batches.subList(from, Math.min(batches.size(), from + perPut)).stream()
                        .map(LanceCoreReplayRun::copyToAbandoned)
                        .toList();
                try (SealedBatchesReader reader = new SealedBatchesReader(ABANDONED, schema, put)) {
                    writer.put(reader);
                } finally {
                    put.forEach(VectorSchemaRoot::close);
                }
            }
            long held = writer.memtableStats().rowCount();
            if (held != rows) {
                throw new IllegalStateException("lance-core's writer holds " + held + " rows, expected " + rows);
            }
            return writer.stats().walFlushBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A copy by value: buffers cannot move between allocators of different roots. */
    private static VectorSchemaRoot copyToAbandoned(VectorSchemaRoot batch) {
        VectorSchemaRoot copy = VectorSchemaRoot.create(batch.getSchema(), ABANDONED);
        copy.allocateNew();
        int rows = batch.getRowCount();
        for (int c = 0; c < batch.getFieldVectors().size(); c++) {
            FieldVector from = batch.getVector(c);
            FieldVector to = copy.getVector(c);
            for (int r = 0; r < rows; r++) {
                to.copyFromSafe(r, r, from);
            }
        }
        copy.setRowCount(rows);
        return copy;
    }

    private static ShardWriterConfig config(long rows) {
        return new ShardWriterConfig()
                .withDurableWrite(true)
                .withMaxMemtableRows(2 * rows + 1)
                .withMaxMemtableSize(Long.MAX_VALUE / 4)
                .withMaxUnflushedMemtableBytes(Long.MAX_VALUE / 4);
    }
}
