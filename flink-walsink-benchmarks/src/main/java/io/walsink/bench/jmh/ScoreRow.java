package io.walsink.bench.jmh;

/**
 * One line of the report. {@code ratio} is score / baseline, the baseline being its class's
 * {@code baseline} method at the same parameters; for throughputs 1.00x means "as fast as the
 * baseline", 0.50x "half as fast". With several rounds it is the median of per-round ratios.
 *
 * @param error half-width of the 99.9% confidence interval over all measured iterations (NaN
 *     with fewer than three)
 */
record ScoreRow(
        String benchmark, String params, double score, double error, String unit, double baseline, double ratio) {}
