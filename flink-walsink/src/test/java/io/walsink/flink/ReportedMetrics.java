package io.walsink.flink;

import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;

/** Looks up the writer's metrics among what Flink's {@code InMemoryReporter} retained for a job. */
final class ReportedMetrics {
    private ReportedMetrics() {}

    static Metric metric(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("walsink." + name))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric walsink." + name + " in " + metrics.keySet()));
    }

    static long counter(Map<String, Metric> metrics, String name) {
        return ((Counter) metric(metrics, name)).getCount();
    }
}
