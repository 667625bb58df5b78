package io.walsink.flink;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;

/**
 * A task metric group for operator harnesses that keeps the gauges an operator registers in its
 * {@code walsink} group, so a test can read them as a reporter would.
 */
final class CapturedWriterGauges extends UnregisteredMetricGroups.UnregisteredTaskMetricGroup {
    private final Map<String, Gauge<?>> gauges = new ConcurrentHashMap<>();

    @Override
    public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name, Map<String, String> info) {
        return new UnregisteredMetricGroups.UnregisteredOperatorMetricGroup() {
            @Override
            public MetricGroup addGroup(String group) {
                return "walsink".equals(group) ? new Capturing() : super.addGroup(group);
            }
        };
    }

    Object value(String gauge) {
        Gauge<?> g = gauges.get(gauge);
        if (g == null) {
            throw new AssertionError("no gauge " + gauge + " registered; registered: " + gauges.keySet());
        }
        return g.getValue();
    }

    private final class Capturing extends UnregisteredMetricsGroup {
        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }
    }
}
