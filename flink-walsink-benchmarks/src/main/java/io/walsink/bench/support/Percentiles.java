package io.walsink.bench.support;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Nearest-rank percentiles of sorted samples, as the runners report latencies. */
public final class Percentiles {
    private Percentiles() {}

    /**
     * The smallest sample with at least {@code p} per cent of the samples at or below it (p = 100:
     * the largest); -1 without samples, so an empty run shows rather than fails.
     *
     * @param sorted ascending
     */
    public static long of(long[] sorted, double p) {
        if (p <= 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
        }
        if (sorted.length == 0) {
            return -1;
        }
        // in decimal: in binary floating point 99.9% of 1,000 is a hair above 999 and would round up to 1,000
        int rank = BigDecimal.valueOf(p)
                .multiply(BigDecimal.valueOf(sorted.length))
                .divide(BigDecimal.valueOf(100), 0, RoundingMode.CEILING)
                .intValueExact();
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }
}
