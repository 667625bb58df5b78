package io.walsink.bench.jmh;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.util.ListStatistics;

/**
 * Runs one {@link BenchmarkGroup}: the baseline and the other methods back to back, so that a
 * ratio compares measurements taken seconds apart on the same machine state (on shared cores
 * the load moves by a factor of two within a minute). With several rounds the order alternates
 * (baseline first, then last) to cancel drift, and the ratio is the median of the per-round
 * ratios. Each method still runs in its own JMH fork: one JVM's JIT profile must not leak into
 * the other's.
 */
final class GroupRun {
    private final BenchmarkGroup group;
    private final ReportArgs args;
    private final ReportedAs shown;
    private final Map<String, ListStatistics> iterations = new LinkedHashMap<>();
    private final Map<String, List<Double>> roundMeans = new LinkedHashMap<>();

    private GroupRun(BenchmarkGroup group, ReportArgs args) {
        this.group = group;
        this.args = args;
        this.shown = group.type().getAnnotation(ReportedAs.class);
        for (String m : group.methods()) {
            iterations.put(m, new ListStatistics());
            roundMeans.put(m, new ArrayList<>());
        }
    }

    static List<ScoreRow> run(BenchmarkGroup group, ReportArgs args) throws RunnerException {
        GroupRun run = new GroupRun(group, args);
        for (int round = 0; round < args.rounds(); round++) {
            List<String> order = new ArrayList<>(group.methods());
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (String method : order) {
                run.record(method, run.runOne(method));
            }
        }
        return run.rows();
    }

    private RunResult runOne(String method) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + Pattern.quote(group.type().getName() + "." + method) + "$")
                .forks(args.forks())
                .warmupIterations(args.warmupIterations())
                .warmupTime(args.warmupTime())
                .measurementIterations(args.iterations())
                .measurementTime(args.time())
                .shouldFailOnError(true);
        group.params().forEach(options::param);
        return new Runner(options.build()).runSingle();
    }

    private void record(String method, RunResult result) {
        ListStatistics round = new ListStatistics();
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            for (IterationResult iteration : fork.getIterationResults()) {
                double score = score(iteration);
                round.addValue(score);
                iterations.get(method).addValue(score);
            }
        }
        roundMeans.get(method).add(round.getMean());
    }

    /** One iteration's score in the unit the report shows. */
    private double score(IterationResult iteration) {
        Result<?> result = iteration.getPrimaryResult();
        if (shown == null) {
            return result.getScore();
        }
        if (!shown.counter().isEmpty()) {
            result = iteration.getSecondaryResults().get(shown.counter());
            if (result == null) {
                throw new IllegalStateException(
                        group.type().getSimpleName() + " reported no counter '" + shown.counter() + "'");
            }
        }
        return result.getScore() * shown.scale();
    }

    private List<ScoreRow> rows() {
        String unit = shown == null ? "ops/s" : shown.unit();
        double baseline =
                group.hasBaseline() ? iterations.get(BenchmarkGroup.BASELINE).getMean() : Double.NaN;
        List<ScoreRow> rows = new ArrayList<>();
        for (String method : group.methods()) {
            ListStatistics all = iterations.get(method);
            double error = all.getN() > 2 ? all.getMeanErrorAt(0.999) : Double.NaN;
            rows.add(new ScoreRow(
                    group.type().getSimpleName() + "." + method,
                    group.paramsText(),
                    all.getMean(),
                    error,
                    unit,
                    baseline,
                    medianRatio(method)));
        }
        return rows;
    }

    private double medianRatio(String method) {
        if (!group.hasBaseline()) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>();
        List<Double> subject = roundMeans.get(method);
        List<Double> baseline = roundMeans.get(BenchmarkGroup.BASELINE);
        for (int i = 0; i < subject.size(); i++) {
            ratios.add(subject.get(i) / baseline.get(i));
        }
        Collections.sort(ratios);
        int mid = ratios.size() / 2;
        return ratios.size() % 2 == 1 ? ratios.get(mid) : (ratios.get(mid - 1) + ratios.get(mid)) / 2;
    }
}
