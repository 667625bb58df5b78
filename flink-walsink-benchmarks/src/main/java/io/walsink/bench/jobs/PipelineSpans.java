package io.walsink.bench.jobs;

import io.walsink.bench.support.Percentiles;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * The latencies {@link PipelineLatencyReport} reports, from the observer's two arrival logs: per
 * row generated -> seen in src (the writer), seen in src -> seen in dst (the pipeline job) and
 * generated -> seen in dst (end to end). Rows generated in the warm-up, before {@code warmupEndMs},
 * are left out; a span counts only rows seen at both of its ends.
 */
final class PipelineSpans {
    static final String WRITER = "generated -> src";
    static final String PIPELINE = "src -> dst (pipeline job)";
    static final String END_TO_END = "generated -> dst (end to end)";

    private PipelineSpans() {}

    /** Latency figures of one span, in milliseconds; -1 without rows. */
    record Span(String name, int rows, long p50, long p90, long p99, long max) {
        static Span of(String name, long[] latencies) {
            long[] sorted = latencies.clone();
            Arrays.sort(sorted);
            return new Span(
                    name,
                    sorted.length,
                    Percentiles.of(sorted, 50),
                    Percentiles.of(sorted, 90),
                    Percentiles.of(sorted, 99),
                    Percentiles.of(sorted, 100));
        }
    }

    static List<Span> of(Arrivals src, Arrivals dst, long warmupEndMs) {
        return List.of(
                span(WRITER, src, src, warmupEndMs, i -> src.arrivedMs(i) - src.createdMs(i)),
                span(PIPELINE, src, dst, warmupEndMs, i -> dst.arrivedMs(i) - src.arrivedMs(i)),
                span(END_TO_END, dst, dst, warmupEndMs, i -> dst.arrivedMs(i) - dst.createdMs(i)));
    }

    /** The first {@code created_ms} seen in either table: when generation started. */
    static long firstCreatedMs(Arrivals src, Arrivals dst) {
        long first = Long.MAX_VALUE;
        for (int i = 0; i < src.rows(); i++) {
            if (src.seen(i)) {
                first = Math.min(first, src.createdMs(i));
            }
            if (dst.seen(i)) {
                first = Math.min(first, dst.createdMs(i));
            }
        }
        return first;
    }

    /** Rows seen in both tables whose {@code created_ms} differs: the pipeline changed a value. */
    static long mismatched(Arrivals src, Arrivals dst) {
        long n = 0;
        for (int i = 0; i < src.rows(); i++) {
            if (src.seen(i) && dst.seen(i) && src.createdMs(i) != dst.createdMs(i)) {
                n++;
            }
        }
        return n;
    }

    private static Span span(String name, Arrivals from, Arrivals to, long warmupEndMs, IntToLongFunction latency) {
        long[] values = new long[from.rows()];
        int n = 0;
        for (int i = 0; i < from.rows(); i++) {
            if (from.seen(i) && to.seen(i) && from.createdMs(i) >= warmupEndMs) {
                values[n++] = latency.applyAsLong(i);
            }
        }
        return Span.of(name, Arrays.copyOf(values, n));
    }
}
