package io.walsink.bench.support;

import java.util.Arrays;
import java.util.List;

/** The median and the range of per-round ratios: what a noisy machine still lets one compare. */
public record Spread(double median, double min, double max, int rounds) {
    public static Spread of(List<Double> values) {
        if (values.isEmpty()) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double[] sorted = values.stream()
                .mapToDouble(Double::doubleValue)
                .filter(v -> !Double.isNaN(v))
                .toArray();
        if (sorted.length == 0) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Spread(median, sorted[0], sorted[n - 1], n);
    }

    /** "0.57x (0.51x-0.62x)" */
    public String text() {
        if (Double.isNaN(median)) {
            return "-";
        }
        return Figures.ratio(median) + " (" + Figures.ratio(min) + "-" + Figures.ratio(max) + ")";
    }
}
