package io.walsink.bench.engine;

import io.walsink.bench.support.ProcessCpu;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.WalAppend;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Replay of a shard's WAL by a new writer ({@code ShardOpener.open}), beside what replay
 * fundamentally is: reading the entries' bytes, and reading plus decoding them. Each reopen gets
 * its own allocator, so the allocator's peak is what one replay held off-heap at most.
 */
final class WalReplayRun {
    /** The shard written for replay: its WAL holds {@code walBytes} in {@code entries} entries. */
    record Written(UUID shardId, long rows, long entries, long walBytes) {}

    /**
     * One reopen: its time, the CPU time of the opening thread and of the whole process (read-ahead,
     * JIT and GC threads included) over it, the rows and entries it replayed and its allocator's
     * peak. CPU time is what a loaded machine leaves comparable between runs; the wall time is not.
     */
    record Reopened(long nanos, long openerCpuNanos, long processCpuNanos, long rows, long entries, long peakBytes) {}

    /** A read and decode of every entry: its time and the CPU time of the thread that did both. */
    record Decoded(long nanos, long cpuNanos) {}

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private WalReplayRun() {}

    /**
     * Writes {@code batches} into a new shard with a WAL append after every {@code entryRows}
     * rows (a ticker at a steady row rate), appends the rest and closes: no SSTable, so a
     * reopen replays every row.
     */
    static Written write(BenchTable table, List<VectorSchemaRoot> batches, int entryRows) {
        UUID shardId = UUID.randomUUID();
        try (ShardWriter writer = table.openShard(table.context(), shardId)) {
            long sinceAppend = 0;
            for (VectorSchemaRoot batch : batches) {
                writer.put(batch);
                sinceAppend += batch.getRowCount();
                if (sinceAppend >= entryRows) {
                    appendOnce(writer);
                    sinceAppend = 0;
                }
            }
            while (writer.hasPendingRows()) {
                appendOnce(writer);
            }
            return new Written(
                    shardId,
                    writer.stats().rowsWritten(),
                    writer.stats().walAppends(),
                    writer.stats().walBytes());
        }
    }

    private static void appendOnce(ShardWriter writer) {
        Optional<WalAppend> append = writer.beginAppend();
        if (append.isPresent()) {
            append.get().run();
            writer.completeAppend(append.get());
        }
    }

    static Reopened reopen(BenchTable table, UUID shardId) {
        try (RootAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            TableContext ctx = table.contextWith(allocator);
            long cpu = THREADS.getCurrentThreadCpuTime();
            long processCpu = ProcessCpu.nanos();
            long start = System.nanoTime();
            try (ShardWriter writer = table.openShard(ctx, shardId)) {
                long nanos = System.nanoTime() - start;
                return new Reopened(
                        nanos,
                        THREADS.getCurrentThreadCpuTime() - cpu,
                        ProcessCpu.nanos() - processCpu,
                        writer.stats().replayedRows(),
                        writer.stats().replayedEntries(),
                        allocator.getPeakMemoryAllocation());
            }
        }
    }

    /** Reads and decodes every entry (and closes it at once): replay without the memtables. */
    static Decoded decode(BenchTable table, UUID shardId) {
        try (RootAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            TableContext ctx = table.contextWith(allocator);
            WalLog wal = new WalLog(ctx.store(), shardId, ctx.codec());
            long cpu = THREADS.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            wal.readFrom(1, entry -> {});
            return new Decoded(System.nanoTime() - start, THREADS.getCurrentThreadCpuTime() - cpu);
        }
    }

    /** Reads every entry's bytes from the store: the floor of any replay. */
    static long readNanos(BenchTable table, UUID shardId) {
        ObjectStore store = table.context().store();
        WalLog names = new WalLog(store, shardId, table.context().codec());
        long start = System.nanoTime();
        long bytes = 0;
        for (long position = 1; ; position++) {
            try {
                bytes += store.get(names.key(position)).length;
            } catch (ObjectNotFoundException end) {
                break;
            }
        }
        long nanos = System.nanoTime() - start;
        if (bytes == 0) {
            throw new IllegalStateException("no WAL entries for shard " + shardId);
        }
        return nanos;
    }
}
