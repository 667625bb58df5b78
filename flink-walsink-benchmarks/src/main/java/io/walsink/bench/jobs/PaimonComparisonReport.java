package io.walsink.bench.jobs;

import io.walsink.bench.jobs.Q1Pipelines.Pipeline;
import io.walsink.bench.support.Figures;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * walsink's SQL q1 job beside the same job into Paimon's primary-key table: each side against its
 * own blackhole run of the same INSERT, so the ratio sink / blackhole compares the sinks and not
 * the two Flink versions (Paimon runs on Flink 1.20 in a JVM of its own, {@link PaimonJvm}).
 * Every round runs walsink's pair at each bucket count in this JVM and Paimon's pairs in a new
 * one, the side that goes first and the order within a pair alternating between rounds. Paimon's
 * table job ends with Flink's final checkpoint (its streaming sink commits only on one, so without
 * it its table would stay empty, and it waits up to a checkpoint interval for it); every other job
 * ends without it, as q1 runs: with it, datagen -> blackhole ran at 245 k rows/s on Flink 2.3 (1.2 M
 * without) and at 0.23-1.57 M on Flink 1.20, which made both ratios noise. walsink's rows are then
 * durable in its WAL, read as of the latest WAL entries. Every table is compared with the model.
 */
public final class PaimonComparisonReport {
    /** The goal on the ratios: walsink's at least this many times Paimon's. */
    static final double GOAL = 1.5;

    /** One round of one bucket count: walsink's pair and Paimon's; {@code paimonCheck} null when it matched. */
    public record Round(
            int buckets,
            int round,
            Q1Report.Run walsink,
            Q1Report.Run blackhole,
            PaimonJvm.Result paimon,
            PaimonJvm.Result paimonBlackhole,
            String paimonCheck) {
        double walsinkRatio() {
            return walsink.rowsPerSecond() / blackhole.rowsPerSecond();
        }

        double paimonRatio() {
            return paimon.rowsPerSecond() / paimonBlackhole.rowsPerSecond();
        }

        /** walsink's table and Paimon's both equal the model. */
        public boolean tablesMatch() {
            return walsink.check().matches() && paimonCheck == null;
        }
    }

    private PaimonComparisonReport() {}

    /** Runs every round of every bucket count, printing as it goes; returns the rounds. */
    public static List<Round> run(Flags f, Consumer<String> out) throws Exception {
        int parallelism = f.positiveInt("--parallelism");
        Q1Rows rows =
                new Q1Rows(f.positive("--rows"), f.positive("--keys"), parallelism, Long.parseLong(f.get("--seed")));
        int[] bucketCounts = Arrays.stream(f.get("--buckets").split(","))
                .mapToInt(b -> Integer.parseInt(b.trim()))
                .toArray();
        if (Arrays.stream(bucketCounts).anyMatch(b -> b <= 0)) {
            throw new IllegalArgumentException("--buckets takes positive counts, got '" + f.get("--buckets") + "'");
        }
        int rounds = f.positiveInt("--rounds");
        long checkpointMillis = f.positive("--checkpoint-ms");
        // q1's walsink defaults (100 ms flush, the sink's memtable age and WAL append limit, compaction
        // on) over SQL's datagen, without the final checkpoint (see the class comment).
        Q1Pipelines.Settings base = new Q1Pipelines.Settings(
                rows,
                bucketCounts[0],
                Duration.ofMillis(checkpointMillis),
                Duration.ofMillis(100),
                false,
                Duration.ZERO,
                true,
                false,
                0);
        long warmupRows = Long.parseLong(f.get("--warmup-rows"));
        warmupRows -= warmupRows % parallelism;
        Q1Rows warm =
                warmupRows > 0 ? new Q1Rows(warmupRows, Math.min(rows.keys, warmupRows), parallelism, rows.seed) : null;
        PaimonJvm paimonJvm = new PaimonJvm(f.get("--paimon-module"), f.get("--paimon-heap"));
        PaimonTableModel model = PaimonTableModel.of(rows);
        out.accept(header(base, bucketCounts, rounds, warmupRows));

        if (warm != null) {
            // Not reported: the planner and the JIT see walsink's pair first; the Paimon JVM warms itself.
            for (Pipeline p : List.of(Pipeline.SQL_WALSINK, Pipeline.SQL_BLACKHOLE)) {
                Q1Report.runOnce(0, p, base.withRows(warm), false);
            }
        }
        List<Round> all = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            Map<Integer, Q1Report.Run> walsink = new HashMap<>();
            Map<Integer, Q1Report.Run> blackhole = new HashMap<>();
            List<PaimonJvm.Result> paimon = List.of();
            for (int side = 0; side < 2; side++) {
                if ((side + round) % 2 == 1) {
                    for (int buckets : bucketCounts) {
                        for (Pipeline p :
                                Q1Report.order(List.of(Pipeline.SQL_WALSINK, Pipeline.SQL_BLACKHOLE), round)) {
                            Q1Report.Run r = Q1Report.runOnce(round, p, base.withBuckets(buckets), true);
                            (p.walsink() ? walsink : blackhole).put(buckets, r);
                        }
                    }
                } else {
                    paimon = paimonJvm.run(
                            requests(rows, warm, bucketCounts, round), parallelism, checkpointMillis, true);
                }
            }
            for (int buckets : bucketCounts) {
                PaimonJvm.Result paimonRun = timed(paimon, "paimon", buckets);
                Round r = new Round(
                        buckets,
                        round,
                        walsink.get(buckets),
                        blackhole.get(buckets),
                        paimonRun,
                        timed(paimon, "blackhole", buckets),
                        model.mismatch(paimonRun));
                all.add(r);
                out.accept(line(r));
            }
        }
        out.accept("\n" + summary(all, bucketCounts) + "\n" + scaling(all, bucketCounts));
        return all;
    }

    private static String line(Round r) {
        return String.format(
                "round %d %4d buckets  walsink %s / blackhole %s rows/s = %s, table = model: %s;"
                        + "  Paimon %s / blackhole %s rows/s = %s, table = model: %s%n",
                r.round(),
                r.buckets(),
                Figures.number(r.walsink().rowsPerSecond()),
                Figures.number(r.blackhole().rowsPerSecond()),
                Figures.ratio(r.walsinkRatio()),
                r.walsink().check().text(),
                Figures.number(r.paimon().rowsPerSecond()),
                Figures.number(r.paimonBlackhole().rowsPerSecond()),
                Figures.ratio(r.paimonRatio()),
                r.paimonCheck() == null ? "yes" : r.paimonCheck());
    }

    /**
     * The Paimon JVM's runs in {@code round}: its warm-up pair, then each bucket count's timed pair,
     * in the order walsink's side runs them.
     */
    private static List<PaimonJvm.Request> requests(Q1Rows rows, Q1Rows warm, int[] bucketCounts, int round) {
        List<PaimonJvm.Request> requests = new ArrayList<>();
        if (warm != null) {
            requests.add(new PaimonJvm.Request("warmup", "paimon", bucketCounts[0], warm));
            requests.add(new PaimonJvm.Request("warmup", "blackhole", bucketCounts[0], warm));
        }
        List<String> sinks = round % 2 == 1 ? List.of("paimon", "blackhole") : List.of("blackhole", "paimon");
        for (int buckets : bucketCounts) {
            sinks.forEach(sink -> requests.add(new PaimonJvm.Request("round-" + round, sink, buckets, rows)));
        }
        return requests;
    }

    private static PaimonJvm.Result timed(List<PaimonJvm.Result> results, String sink, int buckets) {
        return results.stream()
                .filter(r -> r.sink().equals(sink)
                        && r.buckets() == buckets
                        && !r.name().equals("warmup"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "no timed " + sink + " run at " + buckets + " buckets from the Paimon JVM"));
    }

    /** Per bucket count: both sides' medians, their per-round ratios, and walsink's ratio over Paimon's. */
    static String summary(List<Round> rounds, int[] bucketCounts) {
        TextTable table = new TextTable(
                ">buckets",
                ">walsink rows/s",
                ">its blackhole rows/s",
                ">walsink ratio",
                ">Paimon rows/s",
                ">its blackhole rows/s",
                ">Paimon ratio",
                ">walsink ratio / Paimon ratio",
                ">goal",
                "met",
                "tables = model");
        for (int buckets : bucketCounts) {
            List<Round> of = rounds.stream().filter(r -> r.buckets() == buckets).toList();
            Spread relative = spread(of, r -> r.walsinkRatio() / r.paimonRatio());
            table.row(
                    buckets,
                    Figures.number(spread(of, r -> r.walsink().rowsPerSecond()).median()),
                    Figures.number(
                            spread(of, r -> r.blackhole().rowsPerSecond()).median()),
                    spread(of, Round::walsinkRatio).text(),
                    Figures.number(spread(of, r -> r.paimon().rowsPerSecond()).median()),
                    Figures.number(
                            spread(of, r -> r.paimonBlackhole().rowsPerSecond()).median()),
                    spread(of, Round::paimonRatio).text(),
                    relative.text(),
                    ">= " + Figures.ratio(GOAL),
                    Double.isNaN(relative.median()) ? "-" : relative.median() >= GOAL ? "yes" : "no",
                    of.stream().allMatch(Round::tablesMatch) ? "yes" : "no");
        }
        return table.render();
    }

    /**
     * Each later bucket count against the first, per side: the per-round ratio of the sink's
     * rows/s, and whether walsink's holds up at least as well as Paimon's.
     */
    static String scaling(List<Round> rounds, int[] bucketCounts) {
        TextTable table =
                new TextTable("buckets", ">walsink rows/s ratio", ">Paimon rows/s ratio", "walsink's >= Paimon's");
        for (int i = 1; i < bucketCounts.length; i++) {
            List<Double> ours = new ArrayList<>();
            List<Double> theirs = new ArrayList<>();
            for (Round many : rounds) {
                for (Round few : rounds) {
                    if (many.buckets() == bucketCounts[i]
                            && few.buckets() == bucketCounts[0]
                            && many.round() == few.round()) {
                        ours.add(many.walsink().rowsPerSecond() / few.walsink().rowsPerSecond());
                        theirs.add(many.paimon().rowsPerSecond() / few.paimon().rowsPerSecond());
                    }
                }
            }
            Spread w = Spread.of(ours);
            Spread p = Spread.of(theirs);
            table.row(
                    bucketCounts[i] + " / " + bucketCounts[0],
                    w.text(),
                    p.text(),
                    Double.isNaN(w.median()) ? "-" : w.median() >= p.median() ? "yes" : "no");
        }
        return table.render();
    }

    private static Spread spread(List<Round> rounds, ToDoubleFunction<Round> value) {
        return Spread.of(rounds.stream().map(r -> value.applyAsDouble(r)).toList());
    }

    private static String header(Q1Pipelines.Settings s, int[] bucketCounts, int rounds, long warmupRows) {
        Q1Rows r = s.rows();
        return String.format(
                "%n== q1-shaped SQL job, walsink beside Paimon: %,d upserts over %,d keys (seed %d), buckets %s,"
                        + " parallelism %d, checkpoint every %d ms; %d rounds, warm-up %,d rows ==%n"
                        + "walsink: INSERT into 'connector'='walsink' and into 'connector'='blackhole', Flink %s, this JVM%n"
                        + "Paimon:  the same INSERT into a Paimon primary-key table ('bucket' fixed) and into blackhole,"
                        + " Flink 1.20, one new JVM per round%n"
                        + "rows/s: rows over Flink's net runtime (submission to end); Paimon's table job ends with the final"
                        + " checkpoint (its commit), the others without (blackhole runs erratically with it)%n"
                        + "ratio: sink rows/s / its own blackhole rows/s in the same round; goal: walsink's >= %s Paimon's%n",
                r.rows,
                r.keys,
                r.seed,
                Arrays.toString(bucketCounts),
                r.parallelism,
                s.checkpointInterval().toMillis(),
                rounds,
                warmupRows,
                EnvironmentInformation.getVersion(),
                Figures.ratio(GOAL));
    }
}
