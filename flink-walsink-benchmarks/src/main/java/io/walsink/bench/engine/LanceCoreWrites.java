package io.walsink.bench.engine;

import io.walsink.bench.support.ProcessCpu;
import io.walsink.bench.support.SealedBatchesReader;
import io.walsink.format.table.LanceTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.memwal.MemTableStats;
import org.lance.memwal.ShardWriter;
import org.lance.memwal.ShardWriterConfig;
import org.lance.memwal.WriteStats;

/**
 * Puts the same batches into lance-core 7.0.0's own MemWAL shard writer ({@code
 * Dataset.memWalWriter}), one {@code put} per batch. In durable mode each put returns once its
 * rows are in the WAL. Otherwise lance-core appends its WAL buffer once the flush interval has
 * passed, at a later put: rows after the last such append become durable only at the next put
 * or at {@code close()}, which also writes the memtable as an SSTable, so a non-durable run has
 * no "all rows durable" time. Memtable limits are raised above the run's size so that neither
 * writer writes an SSTable while timed; {@code close()} is not timed.
 */
final class LanceCoreWrites {
    /**
     * Nanoseconds until the last put returned and until every row was durable (the same in
     * durable mode, -1 otherwise); the rows its memtable held; its WAL appends at the last put.
     */
    record Timing(
            long putNanos,
            long durableNanos,
            long putCpuNanos,
            long memtableRows,
            long walFlushes,
            long walFlushBytes) {}

    private LanceCoreWrites() {}

    static ShardWriterConfig config(boolean durable, long flushIntervalMillis, long rows, long payloadBytes) {
        return new ShardWriterConfig()
                .withDurableWrite(durable)
                .withMaxWalFlushIntervalMs(flushIntervalMillis)
                .withMaxMemtableRows(2 * rows + 1)
                .withMaxMemtableSize(4 * payloadBytes + (64L << 20))
                .withMaxUnflushedMemtableBytes(8 * payloadBytes + (128L << 20));
    }

    static Timing run(
            BufferAllocator allocator,
            String tableUri,
            Map<String, String> storageOptions,
            boolean durable,
            ShardWriterConfig config,
            List<VectorSchemaRoot> batches) {
        try (Dataset ds = LanceTables.openDataset(allocator, tableUri, storageOptions)) {
            // The dataset's schema carries the key's field metadata, which lance-core requires of
            // every batch; the buffers are the same, only the reader's schema differs.
            Schema schema = ds.getSchema();
            try (ShardWriter writer = ds.memWalWriter(UUID.randomUUID().toString(), config)) {
                long cpuStart = ProcessCpu.nanos();
                long start = System.nanoTime();
                for (VectorSchemaRoot batch : batches) {
                    try (SealedBatchesReader one = new SealedBatchesReader(allocator, schema, List.of(batch))) {
                        writer.put(one);
                    }
                }
                long putsDone = System.nanoTime();
                long putCpu = ProcessCpu.nanos() - cpuStart;
                MemTableStats memtable = writer.memtableStats();
                WriteStats stats = writer.stats(); // before close: a closed writer has none
                return new Timing(
                        putsDone - start,
                        durable ? putsDone - start : -1,
                        putCpu,
                        memtable.rowCount(),
                        stats.walFlushCount(),
                        stats.walFlushBytes());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
