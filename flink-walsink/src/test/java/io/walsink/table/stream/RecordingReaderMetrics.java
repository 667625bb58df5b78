package io.walsink.table.stream;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/** A reader's metric group that keeps its gauges by name ("shard.&lt;id&gt;.generationsBehind"), to read in tests. */
final class RecordingReaderMetrics extends UnregisteredMetricsGroup implements SourceReaderMetricGroup {
    final Map<String, Gauge<?>> gauges = new ConcurrentHashMap<>();

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        gauges.put(name, gauge);
        return gauge;
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
        String prefix = key + "." + value + ".";
        return new UnregisteredMetricsGroup() {
            @Override
            public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                gauges.put(prefix + name, gauge);
                return gauge;
            }
        };
    }

    long value(String name) {
        return ((Number) gauges.get(name).getValue()).longValue();
    }

    @Override
    public OperatorIOMetricGroup getIOMetricGroup() {
        return UnregisteredMetricsGroup.createOperatorIOMetricGroup();
    }

    @Override
    public Counter getNumRecordsInErrorsCounter() {
        return new SimpleCounter();
    }

    @Override
    public void setPendingBytesGauge(Gauge<Long> pendingBytesGauge) {}

    @Override
    public void setPendingRecordsGauge(Gauge<Long> pendingRecordsGauge) {}
}
