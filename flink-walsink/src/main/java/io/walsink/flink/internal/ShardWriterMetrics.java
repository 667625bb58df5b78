package io.walsink.flink.internal;

import io.walsink.shard.ShardWriter;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer's metrics in Flink's metric system, in group {@code walsink} of the operator:
 * counters for rows, WAL appends and bytes, SSTables; gauges over the open shards; the durable
 * lag histogram (ms from the oldest row of an append arriving until that append was durable).
 */
final class ShardWriterMetrics {
    private final Counter rowsIn;
    private final Counter deletesIn;
    private final Counter walAppends;
    private final Counter walBytes;
    private final Counter sstablesWritten;
    private final Counter sstablesPublished;
    private final Counter backpressureMillis;
    private final Histogram durableLag;

    ShardWriterMetrics(MetricGroup operatorGroup, Map<Integer, ShardWriter> shards) {
        MetricGroup g = operatorGroup.addGroup("walsink");
        rowsIn = g.counter("rowsIn");
        deletesIn = g.counter("deletesIn");
        walAppends = g.counter("walAppends");
        walBytes = g.counter("walBytes");
        sstablesWritten = g.counter("sstablesWritten");
        sstablesPublished = g.counter("sstablesPublished");
        backpressureMillis = g.counter("backpressureTimeMs");
        durableLag = g.histogram("durableLagMs", new DescriptiveStatisticsHistogram(1_000));
        g.gauge("shards", (Gauge<Integer>) shards::size);
        g.gauge("pendingRows", (Gauge<Long>) () -> shards.values().stream().mapToLong(ShardWriter::pendingRows).sum());
        g.gauge("pendingBytes", (Gauge<Long>) () -> shards.values().stream().mapToLong(ShardWriter::pendingBytes).sum());
        g.gauge("unflushedBytes", (Gauge<Long>) () -> shards.values().stream().mapToLong(ShardWriter::unflushedBytes).sum());
        g.gauge("maxEpoch", (Gauge<Long>) () -> shards.values().stream().mapToLong(ShardWriter::epoch).max().orElse(0));
        g.gauge("poisoned", (Gauge<Integer>) () -> shards.values().stream().anyMatch(s -> s.poison().isPresent()) ? 1 : 0);
    }

    void rowIn(boolean delete) {
        (delete ? deletesIn : rowsIn).inc();
    }

    void appended(long bytes, long lagMillis) {
        walAppends.inc();
        walBytes.inc(bytes);
        durableLag.update(lagMillis);
    }

    void sstableWritten() {
        sstablesWritten.inc();
    }

    void sstablesPublished(int count) {
        sstablesPublished.inc(count);
    }

    void backpressured(long millis) {
        backpressureMillis.inc(millis);
    }
}
