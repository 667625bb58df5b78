package io.walsink.bench.jobs;

import io.walsink.bench.jobs.Q1Pipelines.Pipeline;
import io.walsink.bench.support.Figures;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.LocalShardTable;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import io.walsink.bench.support.ThreadCpu;
import io.walsink.read.ReadMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The q1-shaped job through walsink beside discarding references, for the DataStream API and for
 * SQL, measured in the same process. A group is a walsink pipeline and its references: for
 * DataStream the same source into a discarding sink behind the same keyBy and into one with no
 * shuffle at all, for SQL the same INSERT into blackhole. Every round runs each member of a
 * group once, in an order that rotates between rounds (W K U, K U W, U W K, ...), so drift of the
 * machine's load does not always favour one side. The report gives rows/s and CPU per run, and
 * per (walsink pipeline, reference) the per-round ratios, their median and range, the goal, and
 * the sink's extra CPU per row. Every walsink run's table is read back and compared with the
 * model.
 */
public final class Q1Report {
    /**
     * One timed run; {@code check} is null for reference runs and for walsink runs not verified;
     * {@code threads} is empty unless its threads were sampled ({@link ThreadCpu}).
     */
    public record Run(
            int round,
            Pipeline pipeline,
            long rows,
            Q1Pipelines.Timing timing,
            Q1Check.Outcome check,
            Map<String, ThreadCpu.Usage> threads) {
        double rowsPerSecond() {
            return rows / (timing.nanos() / 1e9);
        }
    }

    /** Thread groups shown per run with {@code --thread-cpu}; the rest are summed in one line. */
    static final int THREAD_GROUPS_SHOWN = 12;

    /**
     * How often {@code --thread-cpu} reads the threads: a thread's last period before it ends may be
     * missed, and the reads cost CPU, which the table shows as a group of its own ({@code thread-cpu-samp}).
     */
    private static final Duration THREAD_SAMPLE_PERIOD = Duration.ofMillis(500);

    /** The heap of the floor's child JVM. */
    private static final String FLOOR_HEAP = "2g";

    private Q1Report() {}

    /** Refuses options that parse but do not fit together, before any JVM or cluster starts. */
    public static void checkOptions(Flags f) {
        new Q1Rows(
                f.positive("--rows"),
                f.positive("--keys"),
                f.positiveInt("--parallelism"),
                Long.parseLong(f.get("--seed")));
        groups(f.get("--pipelines"));
        sqlFromGenerator(f.get("--sql-source"));
    }

    /** Runs every round of every selected group, printing as it goes; returns the timed runs. */
    public static List<Run> run(Flags f, Consumer<String> out) throws Exception {
        int parallelism = f.positiveInt("--parallelism");
        Q1Rows rows =
                new Q1Rows(f.positive("--rows"), f.positive("--keys"), parallelism, Long.parseLong(f.get("--seed")));
        Q1Pipelines.Settings settings = new Q1Pipelines.Settings(
                rows,
                f.positiveInt("--buckets"),
                Duration.ofMillis(f.positive("--checkpoint-ms")),
                Duration.ofMillis(f.positive("--flush-ms")),
                f.on("--final-checkpoint"),
                Duration.ofMillis(Long.parseLong(f.get("--memtable-max-age-ms"))),
                !f.on("--no-compaction"),
                sqlFromGenerator(f.get("--sql-source")),
                Integer.parseInt(f.get("--wal-appends-per-second")));
        boolean verify = !f.on("--no-verify");
        boolean threadCpu = f.on("--thread-cpu");
        if (threadCpu && !ThreadCpu.available()) {
            throw new IllegalArgumentException("--thread-cpu needs Linux's " + ThreadCpu.TASKS);
        }
        int rounds = f.positiveInt("--rounds");
        List<List<Pipeline>> groups = groups(f.get("--pipelines"));
        out.accept(header(settings, rounds, groups));

        long warmupRows = Long.parseLong(f.get("--warmup-rows"));
        warmupRows -= warmupRows % parallelism;
        if (warmupRows > 0) {
            // Not reported: class loading, the planner and the JIT see every pipeline once first.
            Q1Pipelines.Settings warm =
                    settings.withRows(new Q1Rows(warmupRows, Math.min(rows.keys, warmupRows), parallelism, rows.seed));
            for (List<Pipeline> group : groups) {
                for (Pipeline p : group) {
                    runOnce(0, p, warm, false);
                }
            }
        }

        List<Run> runs = new ArrayList<>();
        TextTable table = new TextTable(
                ">round",
                "api",
                "sink",
                ">rows/s",
                ">s from first row",
                ">s net runtime",
                ">process CPU s",
                "table = model");
        for (List<Pipeline> group : groups) {
            for (int round = 1; round <= rounds; round++) {
                for (Pipeline p : order(group, round)) {
                    Run r = runOnce(round, p, settings, verify, threadCpu);
                    runs.add(r);
                    out.accept(String.format(
                            "round %d %-10s %-38s %,12.0f rows/s%s%n",
                            round,
                            p.api,
                            p.sink,
                            r.rowsPerSecond(),
                            r.check() == null
                                    ? ""
                                    : "  table = model: " + r.check().text()));
                    if (threadCpu) {
                        out.accept(ThreadCpu.render(r.threads(), THREAD_GROUPS_SHOWN) + "\n");
                    }
                    table.row(
                            round,
                            p.api,
                            p.sink,
                            Figures.number(r.rowsPerSecond()),
                            r.timing().fromFirstRowNanos() > 0
                                    ? Figures.number(r.timing().fromFirstRowNanos() / 1e9)
                                    : "-",
                            Figures.number(r.timing().netNanos() / 1e9),
                            r.timing().cpuNanos() > 0
                                    ? Figures.number(r.timing().cpuNanos() / 1e9)
                                    : "-",
                            r.check() == null
                                    ? (p.walsink() ? "not checked" : "-")
                                    : r.check().text());
                }
            }
        }
        out.accept("\n" + table.render());
        String floorLine = "";
        int floorRounds = Integer.parseInt(f.get("--floor-rounds"));
        if (floorRounds > 0 && groups.stream().anyMatch(g -> g.contains(Pipeline.DATASTREAM_WALSINK))) {
            List<FloorReport.PerRow> floor = FloorReport.inChildJvms(
                    rows.rows, rows.keys, rows.seed, floorRounds, FLOOR_HEAP, List.of(FloorReport.Malloc.TUNED), out);
            out.accept(FloorReport.render(rows.rows, rows.keys, floorRounds, floor));
            floorLine = FloorReport.againstTheFloor(
                    extraCpuPerRow(runs, Pipeline.DATASTREAM_WALSINK, Pipeline.DATASTREAM_DISCARD_KEYED),
                    Pipeline.DATASTREAM_DISCARD_KEYED.sink,
                    floor.get(0).total());
        }
        // the summary last, after a blank line
        out.accept("\n" + summary(runs, groups) + floorLine);
        return runs;
    }

    /**
     * The order of a group's runs in {@code round} (from 1): the group rotated by one place per
     * round, so over as many rounds as it has members each runs first once (for a pair: A B, B A).
     */
    static List<Pipeline> order(List<Pipeline> group, int round) {
        int start = (round - 1) % group.size();
        List<Pipeline> order = new ArrayList<>(group.subList(start, group.size()));
        order.addAll(group.subList(0, start));
        return order;
    }

    /** One run of {@code p} into a new table, read back when {@code verify} and {@code p} is walsink. */
    static Run runOnce(int round, Pipeline p, Q1Pipelines.Settings s, boolean verify) throws Exception {
        return runOnce(round, p, s, verify, false);
    }

    /** As above; with {@code threadCpu}, the job's threads are sampled while it runs. */
    static Run runOnce(int round, Pipeline p, Q1Pipelines.Settings s, boolean verify, boolean threadCpu)
            throws Exception {
        Path dir = Files.createTempDirectory("walsink-q1-");
        try {
            Path table = dir.resolve("table");
            ThreadCpu.Sampler sampler = threadCpu ? ThreadCpu.start(THREAD_SAMPLE_PERIOD) : null;
            Q1Pipelines.Timing timing = Q1Pipelines.run(p, s, table);
            Map<String, ThreadCpu.Usage> threads = sampler == null ? Map.of() : sampler.stop();
            Q1Check.Outcome check = p.walsink() && verify
                    ? Q1Check.verify(table, s.rows(), s.finalCheckpoint() ? ReadMode.COMMITTED : ReadMode.LATEST)
                    : null;
            return new Run(round, p, s.rows().rows, timing, check, threads);
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
    }

    /**
     * One row per (walsink pipeline, reference): medians of both rates, the per-round ratio's
     * median and range against the goal, and what walsink's process CPU costs beside the
     * reference's in the same round, as a ratio and as extra nanoseconds per row; beside them each
     * side's process CPU and minor page faults per row (medians).
     */
    static String summary(List<Run> runs, List<List<Pipeline>> groups) {
        TextTable table = new TextTable(
                "api",
                "reference",
                ">walsink rows/s (median)",
                ">reference rows/s (median)",
                ">walsink / reference: median (min-max)",
                ">goal",
                "met",
                ">walsink CPU ns/row",
                ">walsink faults/row",
                ">reference CPU ns/row",
                ">reference faults/row",
                ">reference CPU / walsink CPU: median (min-max)",
                ">extra CPU ns/row: median (min..max)",
                ">rounds");
        for (List<Pipeline> group : groups) {
            Pipeline walsink = group.get(0);
            for (Pipeline reference : group.subList(1, group.size())) {
                List<Double> ratios = new ArrayList<>();
                List<Double> ours = new ArrayList<>();
                List<Double> theirs = new ArrayList<>();
                List<Double> cpuRatios = new ArrayList<>();
                for (Run[] pair : pairs(runs, walsink, reference)) {
                    ratios.add(pair[0].rowsPerSecond() / pair[1].rowsPerSecond());
                    ours.add(pair[0].rowsPerSecond());
                    theirs.add(pair[1].rowsPerSecond());
                    if (pair[0].timing().cpuNanos() > 0 && pair[1].timing().cpuNanos() > 0) {
                        cpuRatios.add((double) pair[1].timing().cpuNanos()
                                / pair[0].timing().cpuNanos());
                    }
                }
                List<Double> extraCpu = extraCpuPerRow(runs, walsink, reference);
                Spread ratio = Spread.of(ratios);
                table.row(
                        walsink.api,
                        reference.sink,
                        Figures.number(Spread.of(ours).median()),
                        Figures.number(Spread.of(theirs).median()),
                        ratio.text(),
                        Double.isNaN(reference.goal) ? "-" : ">= " + Figures.ratio(reference.goal),
                        Double.isNaN(ratio.median()) || Double.isNaN(reference.goal)
                                ? "-"
                                : ratio.median() >= reference.goal ? "yes" : "no",
                        perRow(runs, walsink, r -> r.timing().cpuNanos(), "%,.0f"),
                        perRow(runs, walsink, r -> r.timing().minorFaults(), "%.3f"),
                        perRow(runs, reference, r -> r.timing().cpuNanos(), "%,.0f"),
                        perRow(runs, reference, r -> r.timing().minorFaults(), "%.3f"),
                        cpuRatios.isEmpty() ? "-" : Spread.of(cpuRatios).text(),
                        extraCpu.isEmpty() ? "-" : range(Spread.of(extraCpu)),
                        ratios.size());
            }
        }
        return table.render();
    }

    /** The runs of {@code walsink} and {@code reference} of the same round, as pairs. */
    private static List<Run[]> pairs(List<Run> runs, Pipeline walsink, Pipeline reference) {
        List<Run[]> pairs = new ArrayList<>();
        for (Run a : runs) {
            for (Run b : runs) {
                if (a.pipeline() == walsink && b.pipeline() == reference && b.round() == a.round()) {
                    pairs.add(new Run[] {a, b});
                }
            }
        }
        return pairs;
    }

    /** Per round, (walsink CPU - reference CPU) / rows: both write the same rows, so it is what the sink adds. */
    static List<Double> extraCpuPerRow(List<Run> runs, Pipeline walsink, Pipeline reference) {
        List<Double> extra = new ArrayList<>();
        for (Run[] pair : pairs(runs, walsink, reference)) {
            if (pair[0].timing().cpuNanos() > 0 && pair[1].timing().cpuNanos() > 0) {
                extra.add(
                        (double) (pair[0].timing().cpuNanos() - pair[1].timing().cpuNanos()) / pair[0].rows());
            }
        }
        return extra;
    }

    /** The median over {@code p}'s runs of a process figure per row, or "-" where none was taken. */
    private static String perRow(List<Run> runs, Pipeline p, ToLongFunction<Run> figure, String format) {
        List<Double> values = new ArrayList<>();
        for (Run r : runs) {
            if (r.pipeline() == p && figure.applyAsLong(r) >= 0) {
                values.add((double) figure.applyAsLong(r) / r.rows());
            }
        }
        return values.isEmpty()
                ? "-"
                : String.format(Locale.ROOT, format, Spread.of(values).median());
    }

    private static boolean sqlFromGenerator(String source) {
        return switch (source) {
            case "datagen" -> false;
            case "generator" -> true;
            default -> throw new IllegalArgumentException(
                    "--sql-source takes datagen or generator, got '" + source + "'");
        };
    }

    /** "1,234 (1,100..1,400)": ".." since a value may be negative. */
    private static String range(Spread s) {
        return Figures.number(s.median()) + " (" + Figures.number(s.min()) + ".." + Figures.number(s.max()) + ")";
    }

    /** The selected groups, each a walsink pipeline followed by its references. */
    static List<List<Pipeline>> groups(String list) {
        List<List<Pipeline>> groups = new ArrayList<>();
        for (String name : list.split(",")) {
            switch (name.trim()) {
                case "datastream" -> groups.add(List.of(
                        Pipeline.DATASTREAM_WALSINK,
                        Pipeline.DATASTREAM_DISCARD_KEYED,
                        Pipeline.DATASTREAM_DISCARD_UNSHUFFLED));
                case "sql" -> groups.add(List.of(Pipeline.SQL_WALSINK, Pipeline.SQL_BLACKHOLE));
                default -> throw new IllegalArgumentException(
                        "--pipelines takes datastream and/or sql, got '" + name + "'");
            }
        }
        return groups;
    }

    private static String header(Q1Pipelines.Settings s, int rounds, List<List<Pipeline>> groups) {
        Q1Rows r = s.rows();
        StringBuilder out = new StringBuilder(String.format(
                "%n== q1-shaped job: %,d upserts over %,d keys (1 STRING + 11 BIGINT, seed %d), %d buckets, parallelism %d,"
                        + " checkpoint every %d ms (%s), flush every %d ms, memtable max age %d ms, compaction %s, at most %d WAL appends a second a subtask;"
                        + " %d rounds ==%n"
                        + "machine: %d processors, Java %s%n",
                r.rows,
                r.keys,
                r.seed,
                s.buckets(),
                r.parallelism,
                s.checkpointInterval().toMillis(),
                s.finalCheckpoint() ? "with the final checkpoint" : "no final checkpoint",
                s.flushInterval().toMillis(),
                s.memtableMaxAge().toMillis(),
                s.compaction() ? "on" : "off",
                s.walAppendsPerSecondOrDefault(),
                rounds,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.runtime.version")));
        out.append("pipelines (each round runs every one of a group once, the order rotating between rounds):\n");
        for (List<Pipeline> group : groups) {
            for (Pipeline p : group) {
                out.append(String.format(
                        "  %-10s %-40s %s%s%n",
                        p.api,
                        p.walsink() ? p.sink : "\"" + p.sink + "\"",
                        p.definition,
                        p.walsink() || Double.isNaN(p.goal)
                                ? ""
                                : "; goal: walsink >= " + Figures.ratio(p.goal) + " of it"));
            }
        }
        out.append(String.join(
                "\n",
                "rows/s: from the first generated row to the job's end; SQL over datagen: over Flink's net runtime",
                "  (submission to end: task start-up is in it, for both sides).",
                "process CPU (all threads of this JVM): from the first generated row to the job's end; SQL over",
                "  datagen: from the INSERT's submission, so planning and job start-up are in it, for both sides.",
                "ratio: walsink rows/s / reference rows/s in the same round; goal met when the median ratio reaches it.",
                "extra CPU ns/row: (walsink CPU - reference CPU) / rows, per round: what the sink costs per row beyond",
                "  that reference; CPU ratio: reference CPU / walsink CPU.",
                "CPU ns/row, faults/row beside each ratio: the whole process's CPU and minor page faults over that same",
                "  span, per row, medians of the rounds (not split by thread: --thread-cpu splits each run).",
                "the floor (--floor-rounds): the floor definition in a child JVM on as many rows and keys; the sink's extra CPU",
                "  over the keyed reference is set against it (goal <= " + (int) FloorReport.GOAL + "x).",
                ""));
        return out.toString();
    }
}
