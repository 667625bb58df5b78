package io.walsink.bench.jmh;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.TextTable;
import io.walsink.shard.ShardWriterConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Runs the JMH benchmarks of this module with short settings and prints one table (score,
 * baseline, ratio), then the sections that are counts rather than timings: bytes per key of the
 * primary-key index and WAL PUTs per simulated second.
 *
 * <p>{@code java --add-opens=java.base/java.nio=ALL-UNNAMED -jar target/benchmarks.jar -h}
 */
public final class BenchmarkReport {
    private static final int[] ROW_RATES = {1_000, 10_000, 100_000};
    private static final long[] KEY_SPACES = {1_000_000, 10_000};
    private static final List<Class<?>> BENCHMARKS = List.of(
            MemtablePutBenchmark.class,
            PrimaryKeyIndexBenchmark.class,
            WalEncodeBenchmark.class,
            SsTableFlushBenchmark.class);

    private BenchmarkReport() {}

    public static void main(String[] argv) throws RunnerException {
        ReportArgs args;
        try {
            args = ReportArgs.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (args.help()) {
            System.out.println(ReportArgs.USAGE);
            return;
        }
        List<ScoreRow> scores = args.jmh() ? runJmh(args) : List.of();
        StringBuilder report = new StringBuilder();
        report.append("\n== flink-walsink benchmarks ==\n");
        report.append(machine()).append(settings(args)).append('\n');
        if (!scores.isEmpty()) {
            report.append(scoreTable(scores)).append('\n');
        }
        report.append("-- Primary-key index memory (")
                .append(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS)
                .append(" puts, int64 keys) --\n")
                .append(keyMemoryTable())
                .append('\n');
        report.append("-- Tick-bounded WAL PUTs (one shard, simulated clock, ")
                .append(TickBoundedPuts.SIMULATED_MILLIS)
                .append(" ms) --\n")
                .append(tickTable());
        System.out.print(report);
    }

    private static List<ScoreRow> runJmh(ReportArgs args) throws RunnerException {
        List<ScoreRow> rows = new ArrayList<>();
        for (BenchmarkGroup group : BenchmarkGroup.discover(BENCHMARKS, Pattern.compile(args.include()))) {
            rows.addAll(GroupRun.run(group, args));
        }
        return rows;
    }

    private static String machine() {
        return "machine: " + Runtime.getRuntime().availableProcessors() + " processors, "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", Java "
                + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ")\n";
    }

    private static String settings(ReportArgs a) {
        if (!a.jmh()) {
            return "JMH: skipped (--no-jmh)\n";
        }
        return "JMH: forks " + a.forks() + ", warmup " + a.warmupIterations() + " x " + a.warmupTime()
                + ", measurement " + a.iterations() + " x " + a.time() + ", rounds " + a.rounds()
                + "; error = 99.9% confidence half-width over all measured iterations\n";
    }

    private static String scoreTable(List<ScoreRow> rows) {
        TextTable table = new TextTable("benchmark", "params", ">score", ">error", "unit", ">baseline", ">ratio");
        for (ScoreRow r : rows) {
            table.row(
                    r.benchmark(),
                    r.params(),
                    Figures.number(r.score()),
                    Figures.error(r.error()),
                    r.unit(),
                    Figures.number(r.baseline()),
                    Figures.ratio(r.ratio()));
        }
        return table.render();
    }

    private static String keyMemoryTable() {
        TextTable table =
                new TextTable("structure", ">key space", ">distinct keys", ">bytes/key", ">heap bytes/key (measured)");
        long puts = ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS;
        for (long keySpace : KEY_SPACES) {
            for (KeyMemory.Outcome o : List.of(
                    KeyMemory.longIndex(puts, keySpace),
                    KeyMemory.index(puts, keySpace),
                    KeyMemory.hashMap(puts, keySpace))) {
                table.row(
                        o.structure(),
                        Figures.count(o.keySpace()),
                        Figures.count(o.distinctKeys()),
                        Figures.number(o.bytesPerKey()),
                        Figures.number(o.measuredBytesPerKey()));
            }
        }
        return table.render();
    }

    private static String tickTable() {
        TextTable table = new TextTable(
                ">rows/s", ">interval ms", ">rows", ">WAL entries", ">rows/entry", ">bytes/entry", ">pending at end");
        for (int rate : ROW_RATES) {
            TickBoundedPuts.Outcome o = TickBoundedPuts.run(rate, ShardWriterConfig.defaults());
            table.row(
                    Figures.count(o.rowsPerSecond()),
                    o.intervalMillis(),
                    Figures.count(o.rows()),
                    o.walEntries(),
                    Figures.count(o.rowsPerEntry()),
                    Figures.count(o.bytesPerEntry()),
                    Figures.count(o.pendingAtEnd()));
        }
        return table.render();
    }
}
