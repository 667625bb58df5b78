package io.walsink.bench.jobs;

import io.walsink.bench.jobs.Q1Pipelines.Pipeline;
import io.walsink.bench.support.Figures;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import io.walsink.bench.support.ThreadCpu;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Many buckets per writer subtask: the q1-shaped DataStream job through walsink into a
 * table of few buckets and into one of many, alternating in one JVM. Each bucket count runs a short
 * and a long job per round; its steady rate is the rows between the two over the time between them,
 * so what a run pays once (claiming every shard, the SSTables of a checkpoint taken right after the
 * start, the last SSTables at the end of input) cancels, and what every checkpoint costs stays in.
 * The per-round ratio of the steady rates, many over few, is set against the goal.
 */
public final class ManyBucketsReport {
    /** The goal: many buckets within 20% of the throughput of few. */
    static final double GOAL = 0.8;

    /** A bucket count's short and long run of one round, and the steady state between them. */
    public record Steady(int round, int buckets, Q1Report.Run shortRun, Q1Report.Run longRun) {
        double rowsPerSecond() {
            return (longRun.rows() - shortRun.rows())
                    / ((longRun.timing().nanos() - shortRun.timing().nanos()) / 1e9);
        }

        double cpuNanosPerRow() {
            return (double) (longRun.timing().cpuNanos() - shortRun.timing().cpuNanos())
                    / (longRun.rows() - shortRun.rows());
        }

        /** The same difference of the process's minor page faults. */
        double faultsPerRow() {
            return (double) (longRun.timing().minorFaults() - shortRun.timing().minorFaults())
                    / (longRun.rows() - shortRun.rows());
        }

        /** The same difference per thread group, where the runs' threads were sampled. */
        Map<String, Double> cpuNanosPerRowByGroup() {
            Map<String, Double> groups = new TreeMap<>();
            for (Map.Entry<String, ThreadCpu.Usage> e : longRun.threads().entrySet()) {
                ThreadCpu.Usage before = shortRun.threads().getOrDefault(e.getKey(), new ThreadCpu.Usage(0, 0, 0));
                groups.put(
                        e.getKey(),
                        (e.getValue().cpuSeconds() - before.cpuSeconds()) * 1e9 / (longRun.rows() - shortRun.rows()));
            }
            return groups;
        }
    }

    private ManyBucketsReport() {}

    /** Refuses options that parse but do not fit together, before any JVM or cluster starts. */
    public static void checkOptions(Flags f) {
        long few = f.positive("--few");
        long many = f.positive("--many");
        long shortRows = f.positive("--short-rows");
        long longRows = f.positive("--long-rows");
        if (few >= many) {
            throw new IllegalArgumentException("--few (" + few + ") must be below --many (" + many + ")");
        }
        if (longRows <= shortRows) {
            throw new IllegalArgumentException(
                    "--long-rows (" + longRows + ") must exceed --short-rows (" + shortRows + ")");
        }
        for (long rows : List.of(shortRows, longRows)) {
            new Q1Rows(rows, f.positive("--keys"), f.positiveInt("--parallelism"), Long.parseLong(f.get("--seed")));
        }
    }

    /** Runs every round, printing as it goes; returns each round's steady state per bucket count. */
    public static List<Steady> run(Flags f, Consumer<String> out) throws Exception {
        checkOptions(f);
        int few = Math.toIntExact(f.positive("--few"));
        int many = Math.toIntExact(f.positive("--many"));
        long shortRows = f.positive("--short-rows");
        long longRows = f.positive("--long-rows");
        int parallelism = Math.toIntExact(f.positive("--parallelism"));
        long keys = f.positive("--keys");
        long seed = Long.parseLong(f.get("--seed"));
        boolean verify = !f.on("--no-verify");
        boolean threadCpu = f.on("--thread-cpu");
        if (threadCpu && !ThreadCpu.available()) {
            throw new IllegalArgumentException("--thread-cpu needs Linux's " + ThreadCpu.TASKS);
        }
        int rounds = Math.toIntExact(f.positive("--rounds"));
        Q1Pipelines.Settings base = new Q1Pipelines.Settings(
                new Q1Rows(shortRows, keys, parallelism, seed),
                few,
                Duration.ofMillis(f.positive("--checkpoint-ms")),
                Duration.ofMillis(f.positive("--flush-ms")),
                false,
                Duration.ofMillis(Long.parseLong(f.get("--memtable-max-age-ms"))),
                !f.on("--no-compaction"),
                false,
                Integer.parseInt(f.get("--wal-appends-per-second")));
        Q1Rows longShape = new Q1Rows(longRows, keys, parallelism, seed);
        out.accept(header(base, many, longRows, rounds));

        long warmupRows = Long.parseLong(f.get("--warmup-rows"));
        warmupRows -= warmupRows % parallelism;
        if (warmupRows > 0) {
            // Not reported: class loading and the JIT see both bucket counts' paths first.
            Q1Rows warm = new Q1Rows(warmupRows, Math.min(keys, warmupRows), parallelism, seed);
            for (int buckets : List.of(few, many)) {
                Q1Report.runOnce(
                        0, Pipeline.DATASTREAM_WALSINK, base.withRows(warm).withBuckets(buckets), false);
            }
        }

        List<Steady> steady = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (int buckets : round % 2 == 1 ? List.of(few, many) : List.of(many, few)) {
                Q1Pipelines.Settings s = base.withBuckets(buckets);
                Q1Report.Run shortRun = timed(round, s, verify, threadCpu, out);
                Q1Report.Run longRun = timed(round, s.withRows(longShape), verify, threadCpu, out);
                steady.add(new Steady(round, buckets, shortRun, longRun));
            }
        }
        if (threadCpu) {
            out.accept("\n" + threads(steady, few, many));
        }
        out.accept("\n" + rounds(steady, few, many) + "\n" + summary(steady, few, many));
        return steady;
    }

    private static Q1Report.Run timed(
            int round, Q1Pipelines.Settings s, boolean verify, boolean threadCpu, Consumer<String> out)
            throws Exception {
        Q1Report.Run r = Q1Report.runOnce(round, Pipeline.DATASTREAM_WALSINK, s, verify, threadCpu);
        out.accept(String.format(
                "round %d %4d buckets %,12d rows: %,10.0f rows/s, %6.1f s from the first row, %6.1f CPU s%s%n",
                round,
                s.buckets(),
                r.rows(),
                r.rowsPerSecond(),
                r.timing().nanos() / 1e9,
                r.timing().cpuNanos() / 1e9,
                r.check() == null ? "" : ", table = model: " + r.check().text()));
        return r;
    }

    /** Per round: both bucket counts' steady rates and CPU per row, and the ratio. */
    static String rounds(List<Steady> steady, int few, int many) {
        TextTable table = new TextTable(
                ">round",
                ">few: steady rows/s",
                ">few: CPU us/row",
                ">few: faults/row",
                ">many: steady rows/s",
                ">many: CPU us/row",
                ">many: faults/row",
                ">many / few",
                ">CPU few / many");
        for (int round : steady.stream().map(Steady::round).distinct().toList()) {
            Steady a = find(steady, round, few);
            Steady b = find(steady, round, many);
            table.row(
                    round,
                    Figures.number(a.rowsPerSecond()),
                    Figures.number(a.cpuNanosPerRow() / 1000),
                    faults(a.faultsPerRow()),
                    Figures.number(b.rowsPerSecond()),
                    Figures.number(b.cpuNanosPerRow() / 1000),
                    faults(b.faultsPerRow()),
                    Figures.ratio(b.rowsPerSecond() / a.rowsPerSecond()),
                    Figures.ratio(a.cpuNanosPerRow() / b.cpuNanosPerRow()));
        }
        return table.render();
    }

    /**
     * Steady-state CPU per row of each thread group, the median over the rounds for each bucket
     * count, and how much more the many buckets cost: where the extra CPU of many buckets goes.
     * Largest difference first, at most {@link Q1Report#THREAD_GROUPS_SHOWN} groups.
     */
    static String threads(List<Steady> steady, int few, int many) {
        Map<String, Double> fewMedians = groupMedians(steady, few);
        Map<String, Double> manyMedians = groupMedians(steady, many);
        Set<String> groups = new TreeSet<>(fewMedians.keySet());
        groups.addAll(manyMedians.keySet());
        TextTable table = new TextTable(
                "thread group",
                ">" + few + " buckets: CPU ns/row (median)",
                ">" + many + " buckets: CPU ns/row (median)",
                ">difference ns/row");
        groups.stream()
                .sorted(Comparator.comparingDouble(
                                (String g) -> manyMedians.getOrDefault(g, 0.0) - fewMedians.getOrDefault(g, 0.0))
                        .reversed())
                .limit(Q1Report.THREAD_GROUPS_SHOWN)
                .forEach(g -> table.row(
                        g,
                        Figures.number(fewMedians.getOrDefault(g, 0.0)),
                        Figures.number(manyMedians.getOrDefault(g, 0.0)),
                        Figures.number(manyMedians.getOrDefault(g, 0.0) - fewMedians.getOrDefault(g, 0.0))));
        return table.render();
    }

    /** Per thread group, the median over the rounds of {@code buckets}' steady CPU per row (0 where absent). */
    private static Map<String, Double> groupMedians(List<Steady> steady, int buckets) {
        List<Map<String, Double>> perRound = steady.stream()
                .filter(s -> s.buckets() == buckets)
                .map(Steady::cpuNanosPerRowByGroup)
                .toList();
        Set<String> groups = new TreeSet<>();
        perRound.forEach(m -> groups.addAll(m.keySet()));
        Map<String, Double> medians = new TreeMap<>();
        for (String g : groups) {
            medians.put(
                    g,
                    Spread.of(perRound.stream().map(m -> m.getOrDefault(g, 0.0)).toList())
                            .median());
        }
        return medians;
    }

    /** The per-round ratios' median and range against the goal, for the rate and for CPU per row. */
    static String summary(List<Steady> steady, int few, int many) {
        List<Double> rates = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (int round : steady.stream().map(Steady::round).distinct().toList()) {
            Steady a = find(steady, round, few);
            Steady b = find(steady, round, many);
            rates.add(b.rowsPerSecond() / a.rowsPerSecond());
            cpu.add(a.cpuNanosPerRow() / b.cpuNanosPerRow());
        }
        Spread rate = Spread.of(rates);
        TextTable table = new TextTable(
                "measure",
                ">" + many + " / " + few + " buckets: median (min-max)",
                ">goal",
                "met",
                ">" + few + " buckets: CPU ns/row, faults/row",
                ">" + many + " buckets: CPU ns/row, faults/row",
                ">rounds");
        table.row(
                "steady rows/s",
                rate.text(),
                ">= " + Figures.ratio(GOAL),
                Double.isNaN(rate.median()) ? "-" : rate.median() >= GOAL ? "yes" : "no",
                perRow(steady, few),
                perRow(steady, many),
                rate.rounds());
        table.row("process CPU per row (few / many)", Spread.of(cpu).text(), "-", "-", "", "", cpu.size());
        return table.render();
    }

    /** The medians over the rounds of one bucket count's steady process CPU and faults per row. */
    private static String perRow(List<Steady> steady, int buckets) {
        List<Steady> runs = steady.stream().filter(s -> s.buckets() == buckets).toList();
        return Figures.number(
                        Spread.of(runs.stream().map(Steady::cpuNanosPerRow).toList())
                                .median())
                + ", "
                + faults(Spread.of(runs.stream().map(Steady::faultsPerRow).toList())
                        .median());
    }

    private static String faults(double perRow) {
        return String.format(Locale.ROOT, "%.3f", perRow);
    }

    private static Steady find(List<Steady> steady, int round, int buckets) {
        return steady.stream()
                .filter(s -> s.round() == round && s.buckets() == buckets)
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("round " + round + " has no run of " + buckets + " buckets"));
    }

    private static String header(Q1Pipelines.Settings s, int many, long longRows, int rounds) {
        Q1Rows r = s.rows();
        return String.format(
                "%n== many buckets per writer subtask: the q1-shaped DataStream job into %d and into %d buckets,"
                        + " %,d and %,d upserts over %,d keys (seed %d), parallelism %d, checkpoint every %d ms,"
                        + " flush every %d ms, memtable max age %d ms, compaction %s, at most %d WAL appends a second a subtask; %d rounds ==%n"
                        + "machine: %d processors, Java %s%n"
                        + "steady rows/s: (long run's rows - short run's) / (long run's time - short run's), times from"
                        + " the first generated row;%n"
                        + "  CPU us/row, faults/row: the same difference of the process's CPU time and minor page faults"
                        + " (the whole process, not split by thread: --thread-cpu splits it).%n"
                        + "  Ratio: many / few in the same round; goal met when the median reaches %s.%n",
                s.buckets(),
                many,
                r.rows,
                longRows,
                r.keys,
                r.seed,
                r.parallelism,
                s.checkpointInterval().toMillis(),
                s.flushInterval().toMillis(),
                s.memtableMaxAge().toMillis(),
                s.compaction() ? "on" : "off",
                s.walAppendsPerSecondOrDefault(),
                rounds,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.runtime.version"),
                Figures.ratio(GOAL));
    }
}
