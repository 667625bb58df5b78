package io.walsink.bench.engine;

import io.walsink.bench.support.PolledTimer;
import io.walsink.bench.support.ThreadCpu;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.RecycledMemory;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.storage.S3Options;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Minor page faults per row of the production row path in steady state: the engine's rows written
 * row by row into one shard whose memtables freeze every {@code memtableRows} rows, so SSTables are
 * written while rows arrive. Counts, not times: a fault count does not depend on the machine's load.
 * A warm-up run of the same size comes first; the figures are the second run's.
 */
public final class WriterFaults {
    private WriterFaults() {}

    public static void main(String[] args) throws InterruptedException {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 3_000_000;
        long memtableRows = args.length > 1 ? Long.parseLong(args[1]) : 200_000;
        long recycledBytes = args.length > 2 ? Long.parseLong(args[2]) : 1L << 30;
        System.out.print(report(rows, memtableRows, recycledBytes, 100_000, 42));
    }

    static String report(long rows, long memtableRows, long recycledBytes, long keys, long seed)
            throws InterruptedException {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(memtableRows)
                .build();
        StringBuilder out = new StringBuilder();
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, recycledBytes)) {
            RecycledMemory recycled = allocator.recycled();
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, rows, 1024, keys, seed);
            try {
                for (int run = 1; run <= 2; run++) {
                    ThreadCpu.Sampler sampler = ThreadCpu.start(Duration.ofMillis(200));
                    long reused = recycled.reusedCount();
                    long fresh = recycled.freshCount();
                    long owner;
                    try (BenchTable table = BenchTable.create(
                                    null,
                                    S3Options.defaults(),
                                    allocator,
                                    config,
                                    EngineBatches.SCHEMA,
                                    EngineBatches.KEY);
                            ShardWriter shard = table.openShard()) {
                        owner = writeRows(shard, batches);
                    }
                    var groups = sampler.stop();
                    out.append(String.format(
                            Locale.ROOT,
                            "run %d: %,d rows, memtables of %,d rows, %,d bytes recycled at most: writing thread"
                                    + " %,d minor faults (%.4f per row); buffers of %d KiB or more: %,d reused, %,d fresh%n",
                            run,
                            rows,
                            memtableRows,
                            recycledBytes,
                            owner,
                            owner / (double) rows,
                            RecycledMemory.MIN_RECYCLED_BYTES / 1024,
                            recycled.reusedCount() - reused,
                            recycled.freshCount() - fresh));
                    out.append(ThreadCpu.render(groups, 8));
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
        return out.toString();
    }

    /**
     * Writes every row as the Flink operator does (binary rows, one {@code RowWriter} call each, I/O on another
     * thread, completions and ticks between batches), then writes every memtable as an SSTable so
     * that the shard closes with nothing in flight; returns this thread's minor faults until the
     * last row was written.
     */
    private static long writeRows(ShardWriter writer, List<VectorSchemaRoot> batches) throws InterruptedException {
        ExecutorService ioThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "walsink-bench-io"));
        try {
            QueuedShardIo io = new QueuedShardIo(ioThread);
            PolledTimer timer = new PolledTimer();
            ShardDrivers drivers = ShardDrivers.unbudgeted(io, timer, System::currentTimeMillis);
            ShardDriver shard = drivers.add(0, writer);
            BinaryRows rows = BinaryRows.of(batches);
            long before = ownerFaults();
            TickedShardWrites.write(drivers, shard, io, timer, batches, rows);
            long faults = ownerFaults() - before;
            drivers.writeEverything();
            return faults;
        } finally {
            ioThread.shutdownNow();
        }
    }

    /** Minor faults of the calling thread so far ({@code /proc/thread-self/stat}, field 10). */
    static long ownerFaults() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).strip().split("\\s+");
            return Long.parseLong(f[7]);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/thread-self/stat", e);
        }
    }
}
