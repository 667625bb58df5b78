package io.walsink.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * One line of the report: a benchmark's score next to the score of its class's {@code baseline}
 * method with the same parameters, measured in the same run. The ratio is score / baseline, so
 * for throughputs 1.00x means "as fast as the baseline" and 0.50x "half as fast".
 */
record ScoreRow(String benchmark, String params, double score, double error, String unit, double baseline) {
    static final String BASELINE_METHOD = "baseline";

    double ratio() {
        return Double.isNaN(baseline) || baseline == 0 ? Double.NaN : score / baseline;
    }

    boolean isBaseline() {
        return benchmark.endsWith("." + BASELINE_METHOD);
    }

    /** Rows for every result, grouped by class and parameters, each group's baseline first. */
    static List<ScoreRow> of(Collection<RunResult> results) {
        List<ScoreRow> unpaired = new ArrayList<>();
        for (RunResult r : results) {
            unpaired.add(fromResult(r));
        }
        Map<String, Double> baselines = new HashMap<>();
        for (ScoreRow row : unpaired) {
            if (row.isBaseline()) {
                baselines.put(row.groupKey(), row.score);
            }
        }
        List<ScoreRow> rows = new ArrayList<>();
        for (ScoreRow row : unpaired) {
            double baseline = baselines.getOrDefault(row.groupKey(), Double.NaN);
            rows.add(new ScoreRow(row.benchmark, row.params, row.score, row.error, row.unit, baseline));
        }
        rows.sort(Comparator.comparing(ScoreRow::groupKey)
                .thenComparing(row -> !row.isBaseline())
                .thenComparing(ScoreRow::benchmark));
        return rows;
    }

    private String groupKey() {
        return benchmark.substring(0, benchmark.lastIndexOf('.')) + "|" + params;
    }

    private static ScoreRow fromResult(RunResult r) {
        BenchmarkParams p = r.getParams();
        String full = p.getBenchmark();
        String className = full.substring(0, full.lastIndexOf('.'));
        ReportedAs shown = reportedAs(className);
        Result<?> result = r.getPrimaryResult();
        double scale = 1.0;
        String unit = result.getScoreUnit();
        if (shown != null) {
            unit = shown.unit();
            scale = shown.scale();
            if (!shown.counter().isEmpty()) {
                result = r.getSecondaryResults().get(shown.counter());
                if (result == null) {
                    throw new IllegalStateException(full + " reported no counter '" + shown.counter() + "'");
                }
            }
        }
        Map<String, String> params = new TreeMap<>();
        for (String key : p.getParamsKeys()) {
            params.put(key, p.getParam(key));
        }
        String shortName = full.substring(className.lastIndexOf('.') + 1);
        return new ScoreRow(shortName, String.join(",", params.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList()),
                result.getScore() * scale, result.getScoreError() * scale, unit, Double.NaN);
    }

    private static ReportedAs reportedAs(String className) {
        try {
            return Class.forName(className).getAnnotation(ReportedAs.class);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
