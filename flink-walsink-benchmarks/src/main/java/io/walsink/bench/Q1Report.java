package io.walsink.bench;

import io.walsink.bench.Q1Pipelines.Pipeline;
import io.walsink.read.ReadMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The q1-shaped job through walsink beside the same job into a discarding sink, for the
 * DataStream API and for SQL, measured in the same process: each pair runs alternately (A B, B
 * A, A B, ...) for several rounds; the report gives rows/s per run, the per-round ratios, their
 * median and their range. Every walsink run's table is read back and compared with the model.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx3g -cp flink-walsink-benchmarks/target/benchmarks.jar \
 *     io.walsink.bench.Q1Report [--rows 3000000] [--keys 1000000] [--rounds 3]
 * </pre>
 */
public final class Q1Report {
    static final String USAGE = String.join(
            "\n",
            "Usage: java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx3g -cp benchmarks.jar io.walsink.bench.Q1Report [options]",
            "  --rows N               upserts per run, a multiple of the parallelism (default 3000000)",
            "  --keys N               distinct keys, a multiple of the parallelism (default 1000000)",
            "  --rounds N             rounds per pair, alternating which side runs first (default 3)",
            "  --warmup-rows N        rows of one unreported run of each pipeline first; 0: none (default 300000)",
            "  --pipelines LIST       datastream, sql or both (default datastream,sql)",
            "  --parallelism N        source and sink parallelism (default 2)",
            "  --buckets N            buckets of the walsink table (default 4)",
            "  --checkpoint-ms N      checkpoint interval (default 10000)",
            "  --flush-ms N           walsink flush interval (default 100)",
            "  --seed N               seed of the key order and values (default 42)",
            "  --discard-without-keyby  the discarding DataStream pipeline skips the bucket keyBy",
            "  --final-checkpoint     keep Flink's checkpoint after tasks finish: every job then idles up to",
            "                         one checkpoint interval at its end; walsink tables are read COMMITTED",
            "                         (without it: LATEST, since the last SSTables are not published)",
            "  --no-verify            do not read walsink tables back (they are by default)",
            "  -h, --help             this text");

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("--rows", "3000000");
        DEFAULTS.put("--keys", "1000000");
        DEFAULTS.put("--rounds", "3");
        DEFAULTS.put("--warmup-rows", "300000");
        DEFAULTS.put("--pipelines", "datastream,sql");
        DEFAULTS.put("--parallelism", "2");
        DEFAULTS.put("--buckets", "4");
        DEFAULTS.put("--checkpoint-ms", "10000");
        DEFAULTS.put("--flush-ms", "100");
        DEFAULTS.put("--seed", "42");
        DEFAULTS.put("--discard-without-keyby", "false");
        DEFAULTS.put("--final-checkpoint", "false");
        DEFAULTS.put("--no-verify", "false");
    }

    /** One timed run; {@code check} is null for reference runs and for walsink runs not verified. */
    record Run(int round, Pipeline pipeline, long rows, Q1Pipelines.Timing timing, Q1Check.Outcome check) {
        double rowsPerSecond() {
            return rows / (timing.nanos() / 1e9);
        }
    }

    private Q1Report() {}

    /** Parses {@code args} against this runner's options and defaults. */
    static Flags flags(String... args) {
        return Flags.parse(args, DEFAULTS, USAGE);
    }

    public static void main(String[] argv) throws Exception {
        Optional<Flags> parsed = Flags.forMain(argv, DEFAULTS, USAGE);
        if (parsed.isEmpty()) {
            return;
        }
        Flags flags = parsed.get();
        List<Run> runs = run(flags, System.out::print);
        boolean allMatch =
                runs.stream().allMatch(r -> r.check() == null || r.check().matches());
        System.exit(allMatch ? 0 : 1);
    }

    /** Runs every round of every selected pair, printing as it goes; returns the timed runs. */
    static List<Run> run(Flags f, Consumer<String> out) throws Exception {
        int parallelism = f.positiveInt("--parallelism");
        Q1Rows rows =
                new Q1Rows(f.positive("--rows"), f.positive("--keys"), parallelism, Long.parseLong(f.get("--seed")));
        Q1Pipelines.Settings settings = new Q1Pipelines.Settings(
                rows,
                f.positiveInt("--buckets"),
                Duration.ofMillis(f.positive("--checkpoint-ms")),
                Duration.ofMillis(f.positive("--flush-ms")),
                !f.on("--discard-without-keyby"),
                f.on("--final-checkpoint"));
        boolean verify = !f.on("--no-verify");
        int rounds = f.positiveInt("--rounds");
        List<Pipeline[]> pairs = pairs(f.get("--pipelines"));
        out.accept(header(settings, rounds));

        long warmupRows = Long.parseLong(f.get("--warmup-rows"));
        warmupRows -= warmupRows % parallelism;
        if (warmupRows > 0) {
            // Not reported: class loading, the planner and the JIT see every pipeline once first.
            Q1Pipelines.Settings warm = new Q1Pipelines.Settings(
                    new Q1Rows(warmupRows, Math.min(rows.keys, warmupRows), parallelism, rows.seed),
                    settings.buckets(),
                    settings.checkpointInterval(),
                    settings.flushInterval(),
                    settings.discardKeyBy(),
                    settings.finalCheckpoint());
            for (Pipeline[] pair : pairs) {
                for (Pipeline p : pair) {
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
                ">CPU s from first row",
                ">s net runtime",
                "table = model");
        for (Pipeline[] pair : pairs) {
            for (int round = 1; round <= rounds; round++) {
                Pipeline first = round % 2 == 1 ? pair[0] : pair[1];
                Pipeline second = first == pair[0] ? pair[1] : pair[0];
                for (Pipeline p : List.of(first, second)) {
                    Run r = runOnce(round, p, settings, verify);
                    runs.add(r);
                    out.accept(String.format(
                            "round %d %-10s %-24s %,12.0f rows/s%s%n",
                            round,
                            p.api,
                            p.sink,
                            r.rowsPerSecond(),
                            r.check() == null
                                    ? ""
                                    : "  table = model: " + r.check().text()));
                    table.row(
                            round,
                            p.api,
                            p.sink,
                            Figures.number(r.rowsPerSecond()),
                            r.timing().fromFirstRowNanos() > 0
                                    ? Figures.number(r.timing().fromFirstRowNanos() / 1e9)
                                    : "-",
                            r.timing().cpuFromFirstRowNanos() > 0
                                    ? Figures.number(r.timing().cpuFromFirstRowNanos() / 1e9)
                                    : "-",
                            Figures.number(r.timing().netNanos() / 1e9),
                            r.check() == null
                                    ? (p.walsink() ? "not checked" : "-")
                                    : r.check().text());
                }
            }
        }
        out.accept("\n" + table.render() + "\n" + summary(runs, pairs));
        return runs;
    }

    private static Run runOnce(int round, Pipeline p, Q1Pipelines.Settings s, boolean verify) throws Exception {
        Path dir = Files.createTempDirectory("walsink-q1-");
        try {
            Path table = dir.resolve("table");
            Q1Pipelines.Timing timing = Q1Pipelines.run(p, s, table, dir.resolve("checkpoints"));
            Q1Check.Outcome check = p.walsink() && verify
                    ? Q1Check.verify(table, s.rows(), s.finalCheckpoint() ? ReadMode.COMMITTED : ReadMode.LATEST)
                    : null;
            return new Run(round, p, s.rows().rows, timing, check);
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
    }

    /** Per pair: walsink's rows/s over the reference's in the same round, median and range. */
    static String summary(List<Run> runs, List<Pipeline[]> pairs) {
        TextTable table = new TextTable(
                "api",
                ">walsink rows/s (median)",
                ">reference rows/s (median)",
                ">walsink / reference: median (min-max)",
                ">reference CPU / walsink CPU: median (min-max)",
                ">rounds");
        for (Pipeline[] pair : pairs) {
            List<Double> ratios = new ArrayList<>();
            List<Double> ours = new ArrayList<>();
            List<Double> theirs = new ArrayList<>();
            List<Double> cpuRatios = new ArrayList<>();
            for (Run a : runs) {
                if (a.pipeline() != pair[0]) {
                    continue;
                }
                for (Run b : runs) {
                    if (b.pipeline() == pair[1] && b.round() == a.round()) {
                        ratios.add(a.rowsPerSecond() / b.rowsPerSecond());
                        ours.add(a.rowsPerSecond());
                        theirs.add(b.rowsPerSecond());
                        long ourCpu = a.timing().cpuFromFirstRowNanos();
                        long theirCpu = b.timing().cpuFromFirstRowNanos();
                        if (ourCpu > 0 && theirCpu > 0) {
                            cpuRatios.add((double) theirCpu / ourCpu);
                        }
                    }
                }
            }
            table.row(
                    pair[0].api + " (" + pair[1].sink + ")",
                    Figures.number(Spread.of(ours).median()),
                    Figures.number(Spread.of(theirs).median()),
                    Spread.of(ratios).text(),
                    cpuRatios.isEmpty() ? "-" : Spread.of(cpuRatios).text(),
                    ratios.size());
        }
        return table.render();
    }

    static List<Pipeline[]> pairs(String list) {
        List<Pipeline[]> pairs = new ArrayList<>();
        for (String name : list.split(",")) {
            switch (name.trim()) {
                case "datastream" -> pairs.add(
                        new Pipeline[] {Pipeline.DATASTREAM_WALSINK, Pipeline.DATASTREAM_DISCARD});
                case "sql" -> pairs.add(new Pipeline[] {Pipeline.SQL_WALSINK, Pipeline.SQL_BLACKHOLE});
                default -> throw new IllegalArgumentException(
                        "--pipelines takes datastream and/or sql, got '" + name + "'");
            }
        }
        return pairs;
    }

    private static String header(Q1Pipelines.Settings s, int rounds) {
        Q1Rows r = s.rows();
        return String.format(
                "%n== q1-shaped job: %,d upserts over %,d keys (1 STRING + 11 BIGINT, seed %d), %d buckets, parallelism %d,"
                        + " checkpoint every %d ms (%s), flush every %d ms; %d rounds; discarding DataStream pipeline %s ==%n"
                        + "machine: %d processors, Java %s%n",
                r.rows,
                r.keys,
                r.seed,
                s.buckets(),
                r.parallelism,
                s.checkpointInterval().toMillis(),
                s.finalCheckpoint() ? "with the final checkpoint" : "no final checkpoint",
                s.flushInterval().toMillis(),
                rounds,
                s.discardKeyBy() ? "keyed by bucket like walsink" : "without keyBy",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.runtime.version"));
    }
}
