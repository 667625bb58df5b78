package io.walsink.bench.engine;

import io.walsink.bench.support.ChildJvm;
import io.walsink.bench.support.Figures;
import io.walsink.bench.support.TextTable;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.io.SsTableFlush;
import io.walsink.storage.S3Options;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Not a timing benchmark: how much process memory lance-core takes, outside walsink's capped Arrow
 * allocator, while it writes SSTables, one or several at once (a writer subtask runs up to
 * {@code sink.io-threads} at once). Each setting runs in a JVM of its own, since memory the native
 * allocator has taken once stays with the process, and with its heap committed and touched at
 * start, so that the resident set grows by native memory only: it is sampled every 2 ms from
 * before the writes start until they end, after the memtables are filled and frozen. Linux only
 * ({@code /proc/self/status}).
 */
public final class NativeMemoryReport {
    /** One setting's outcome: bytes of Arrow payload per memtable, resident set before, peak above it. */
    public record Result(int parallel, long payloadBytes, long rssBefore, long peakAbove) {}

    private NativeMemoryReport() {}

    /**
     * Runs each setting of {@code parallelList} in a child JVM and returns the table; the child runs
     * {@code childCommand} (a main class and its first arguments) with {@code --rows N --child P}
     * and prints {@link #resultLine}.
     */
    public static String report(long rows, String parallelList, List<String> childCommand)
            throws IOException, InterruptedException {
        TextTable table = new TextTable(
                ">SSTable writes at once",
                ">memtable payload MB each",
                ">resident MB before",
                ">peak MB above it",
                ">MB per write");
        for (String item : parallelList.split(",")) {
            Result r = inChildJvm(rows, Integer.parseInt(item.trim()), childCommand);
            table.row(
                    r.parallel(),
                    Figures.number(r.payloadBytes() / 1e6),
                    Figures.number(r.rssBefore() / 1e6),
                    Figures.number(r.peakAbove() / 1e6),
                    Figures.number(r.peakAbove() / 1e6 / r.parallel()));
        }
        return String.format(
                "%n== lance-core's process memory while writing SSTables of %,d rows (outside walsink's Arrow cap) ==%n%s",
                rows, table.render());
    }

    private static Result inChildJvm(long rows, int parallel, List<String> childCommand)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(childCommand);
        args.addAll(List.of("--rows", String.valueOf(rows), "--child", String.valueOf(parallel)));
        // A heap resident from the start, so that what the resident set gains is native memory.
        List<String> results = ChildJvm.run(ChildJvm.command("1g", args), Map.of(), line -> {});
        if (results.size() != 1) {
            throw new IllegalStateException("the measuring JVM for " + parallel + " writes gave no result");
        }
        String[] f = results.get(0).split(" ");
        return new Result(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    /** The line a child JVM prints for {@link #report} to read. */
    public static String resultLine(Result r) {
        return ChildJvm.RESULT + r.parallel() + " " + r.payloadBytes() + " " + r.rssBefore() + " " + r.peakAbove();
    }

    /** In this JVM: fills {@code parallel} shards of their own tables, freezes them, then writes all at once. */
    public static Result measure(long rows, int parallel) throws Exception {
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, rows, 1024, rows, 42);
            List<BenchTable> tables = new ArrayList<>();
            List<ShardWriter> shards = new ArrayList<>();
            try {
                ShardWriterConfig config = ShardWriterConfig.builder()
                        .flushInterval(Duration.ofMillis(100))
                        .memtableMaxRows(2 * rows + 1)
                        .build();
                for (int i = 0; i < parallel; i++) {
                    BenchTable table = BenchTable.create(
                            null, S3Options.defaults(), allocator, config, EngineBatches.SCHEMA, EngineBatches.KEY);
                    tables.add(table);
                    ShardWriter shard = table.openShard();
                    shards.add(shard);
                    try (TickedShardWrites driver = new TickedShardWrites()) {
                        driver.run(shard, batches);
                    }
                    shard.freezeActive();
                }
                System.gc();
                long before = residentBytes();
                AtomicLong peak = new AtomicLong(before);
                AtomicBoolean done = new AtomicBoolean();
                Thread sampler = new Thread(() -> {
                    while (!done.get()) {
                        peak.accumulateAndGet(residentBytes(), Math::max);
                        try {
                            Thread.sleep(2);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
                sampler.start();
                List<SsTableFlush> flushes = new ArrayList<>();
                List<Thread> writers = new ArrayList<>();
                for (ShardWriter shard : shards) {
                    SsTableFlush flush = shard.beginFlush().orElseThrow();
                    flushes.add(flush);
                    Thread t = new Thread(flush, "sstable-write-" + writers.size());
                    writers.add(t);
                    t.start();
                }
                for (Thread t : writers) {
                    t.join();
                }
                done.set(true);
                sampler.join();
                peak.accumulateAndGet(residentBytes(), Math::max);
                for (int i = 0; i < shards.size(); i++) {
                    shards.get(i).completeFlush(flushes.get(i)); // fails if the write failed
                }
                return new Result(parallel, EngineBatches.bufferBytes(batches), before, peak.get() - before);
            } finally {
                for (ShardWriter shard : shards) {
                    shard.close();
                }
                for (BenchTable table : tables) {
                    table.close();
                }
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    /** This process's resident set ({@code VmRSS}). */
    static long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/status: the report needs Linux", e);
        }
        throw new IllegalStateException("/proc/self/status has no VmRSS line");
    }
}
