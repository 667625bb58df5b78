package io.walsink.bench;

import io.walsink.format.Murmur3;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.memtable.Memtable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * What one SSTable write costs ({@link SsTableWriter#write}, with its primary-key index), per
 * SSTable, for memtables of a few sizes: wall milliseconds, and CPU milliseconds of the whole
 * process (lance-core's native threads included). With many buckets per writer the SSTables are
 * small (tens to thousands of rows) and this fixed cost is what they cost; on a shared machine
 * compare the CPU figure, which does not count the time other processes held the cores.
 *
 * <p>Keys are distinct and in random order (the index sorts them); one row in ten updates a key
 * of the same memtable. Each size is warmed up, then written {@code --count} times per round, in
 * fresh folders.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp flink-walsink-benchmarks/target/benchmarks.jar \
 *     io.walsink.bench.SsTableWriteReport [--rows 100,10000,100000] [--count 100,30,6] [--rounds 3]
 * </pre>
 */
public final class SsTableWriteReport {
    static final String USAGE = String.join(
            "\n",
            "Usage: SsTableWriteReport [options]",
            "  --rows N,...    memtable rows of each size (default 100,10000,100000)",
            "  --count N,...   SSTables written per round of each size (default 100,30,6)",
            "  --rounds N      measured rounds of each size, after a warm-up round (default 3)");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("--rows", "100,10000,100000");
        DEFAULTS.put("--count", "100,30,6");
        DEFAULTS.put("--rounds", "3");
    }

    private SsTableWriteReport() {}

    public static void main(String[] argv) {
        Optional<Flags> parsed = Flags.forMain(argv, DEFAULTS, USAGE);
        if (parsed.isEmpty()) {
            return;
        }
        Flags flags = parsed.get();
        List<Long> sizes = flags.positives("--rows");
        List<Long> counts = flags.positives("--count");
        if (counts.size() != sizes.size()) {
            throw new IllegalArgumentException("--count needs one value per --rows value");
        }
        int rounds = flags.positiveInt("--rounds");
        TextTable table = new TextTable(
                "rows",
                ">SSTables",
                ">wall ms/SSTable: median",
                ">min",
                ">max",
                ">CPU ms/SSTable: median",
                ">min",
                ">max");
        try (BufferAllocator allocator = new RootAllocator();
                LocalShardTable shardTable = LocalShardTable.create(allocator)) {
            for (int s = 0; s < sizes.size(); s++) {
                int rows = Math.toIntExact(sizes.get(s));
                int count = Math.toIntExact(counts.get(s));
                List<double[]> turns = measure(shardTable, rows, count, rounds);
                Spread wall = Spread.of(turns.stream().map(t -> t[0]).toList());
                Spread cpu = Spread.of(turns.stream().map(t -> t[1]).toList());
                table.row(
                        rows,
                        count * rounds,
                        ms(wall.median()),
                        ms(wall.min()),
                        ms(wall.max()),
                        ms(cpu.median()),
                        ms(cpu.min()),
                        ms(cpu.max()));
            }
        }
        System.out.printf("%n== one SSTable write with its key index, per SSTable ==%n%s", table.render());
    }

    /** Per round: wall and process-CPU nanoseconds per SSTable; the first round is a warm-up. */
    private static List<double[]> measure(LocalShardTable shardTable, int rows, int count, int rounds) {
        TableContext ctx = shardTable.context();
        long[] ids = UpdatedKeys.sequence(rows, 0.1, 11);
        for (int i = 0; i < ids.length; i++) {
            // a bijection, so still distinct, in random order: a multiplier alone (as here before
            // 2026-12-03) left ordered runs that made the key index's merge sort look four times cheaper
            ids[i] = Murmur3.fmix64(ids[i]);
        }
        List<double[]> turns = new ArrayList<>();
        try (Memtable frozen = MemtableFiller.of(ctx, ids)) {
            frozen.freeze();
            for (int round = 0; round <= rounds; round++) {
                Path scratch = shardTable.scratch("sstables-" + rows + "-" + round);
                SsTableWriter writer = new SsTableWriter(
                        scratch.toString(), Map.of(), UUID.randomUUID(), ctx.storage(), ctx.allocator());
                long cpu = ProcessCpu.nanos();
                long wall = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    writer.write(frozen);
                }
                double wallPer = (double) (System.nanoTime() - wall) / count;
                double cpuPer = (double) (ProcessCpu.nanos() - cpu) / count;
                LocalShardTable.deleteRecursively(scratch);
                if (round > 0) {
                    turns.add(new double[] {wallPer, cpuPer});
                }
            }
        }
        return turns;
    }

    private static String ms(double nanos) {
        return String.format("%.1f", nanos / 1e6);
    }
}
