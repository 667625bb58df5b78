package io.walsink.flink.internal;

import io.walsink.shard.ShardEvents;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.driver.ShardDriver;
import java.util.Collection;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer's metrics in Flink's metric system, in group {@code walsink} of the operator:
 * counters for rows, WAL appends and bytes, SSTables; gauges over the open shards; the durable
 * lag histogram (ms from the oldest row of an append arriving until that append was durable).
 *
 * <p>Reporters read gauges on their own thread, while the shards are only safe to touch on the
 * task thread; so the task thread copies the gauge values into volatile fields ({@link #refresh})
 * every {@link #REFRESH_MILLIS} of processing time and at the end of input, and the gauges read
 * those. Not at every tick or I/O completion: a refresh walks every shard, and a subtask that owns
 * hundreds of buckets ticks thousands of times a second, which made the walks quadratic.
 */
final class ShardWriterMetrics implements ShardEvents {
    /** How often the gauges are refreshed; reporters read them every 10 s or so by default. */
    static final long REFRESH_MILLIS = 1_000;

    private final Counter rowsIn;
    private final Counter deletesIn;
    private final Counter walAppends;
    private final Counter walBytes;
    private final Counter sstablesWritten;
    private final Counter sstablesPublished;
    private final Counter backpressureMillis;
    private final Histogram durableLag;
    private final Counter compactedGenerations;
    private final Counter compactionFailures;
    private final Counter collectedBytes;
    private final Counter gcFailures;
    private final Histogram visibilityLag;
    private volatile int openShards;
    private volatile long pendingRows;
    private volatile long pendingBytes;
    private volatile long unflushedBytes;
    private volatile long maxEpoch;
    private volatile int poisoned;
    private volatile int maxSsTablesPerShard;

    ShardWriterMetrics(MetricGroup operatorGroup) {
        MetricGroup g = operatorGroup.addGroup("walsink");
        rowsIn = g.counter("rowsIn");
        deletesIn = g.counter("deletesIn");
        walAppends = g.counter("walAppends");
        walBytes = g.counter("walBytes");
        sstablesWritten = g.counter("sstablesWritten");
        sstablesPublished = g.counter("sstablesPublished");
        backpressureMillis = g.counter("backpressureTimeMs");
        compactedGenerations = g.counter("compactedGenerations");
        compactionFailures = g.counter("compactionFailures");
        collectedBytes = g.counter("gcCollectedBytes");
        gcFailures = g.counter("gcFailures");
        durableLag = g.histogram("durableLagMs", new DescriptiveStatisticsHistogram(1_000));
        visibilityLag = g.histogram("visibilityLagMs", new DescriptiveStatisticsHistogram(1_000));
        g.gauge("shards", (Gauge<Integer>) () -> openShards);
        g.gauge("pendingRows", (Gauge<Long>) () -> pendingRows);
        g.gauge("pendingBytes", (Gauge<Long>) () -> pendingBytes);
        g.gauge("unflushedBytes", (Gauge<Long>) () -> unflushedBytes);
        g.gauge("maxEpoch", (Gauge<Long>) () -> maxEpoch);
        g.gauge("poisoned", (Gauge<Integer>) () -> poisoned);
        g.gauge("maxSsTablesPerShard", (Gauge<Integer>) () -> maxSsTablesPerShard);
    }

    /** Copies the shards' state for the gauges; call on the task thread only. */
    void refresh(Collection<ShardDriver> shards) {
        long rows = 0;
        long bytes = 0;
        long unflushed = 0;
        long epoch = 0;
        int anyPoisoned = 0;
        int ssTables = 0;
        for (ShardDriver d : shards) {
            ShardWriter s = d.writer();
            rows += s.pendingRows();
            bytes += s.pendingBytes();
            unflushed += s.unflushedBytes();
            epoch = Math.max(epoch, s.epoch());
            anyPoisoned |= s.poison().isPresent() ? 1 : 0;
            ssTables = Math.max(ssTables, s.manifest().sstables().size());
        }
        openShards = shards.size();
        pendingRows = rows;
        pendingBytes = bytes;
        unflushedBytes = unflushed;
        maxEpoch = epoch;
        poisoned = anyPoisoned;
        maxSsTablesPerShard = ssTables;
    }

    void rowIn(boolean delete) {
        (delete ? deletesIn : rowsIn).inc();
    }

    /** Called from the compaction thread: counters are thread-safe. */
    void compacted(long generations) {
        compactedGenerations.inc(generations);
    }

    void compactionFailed() {
        compactionFailures.inc();
    }

    void collected(long bytes) {
        collectedBytes.inc(bytes);
    }

    void gcFailed() {
        gcFailures.inc();
    }

    /** An SSTable was published; its first row had waited {@code waitedMillis} since it arrived. */
    @Override
    public void published(long waitedMillis) {
        visibilityLag.update(waitedMillis);
    }

    @Override
    public void appended(long bytes, long lagMillis) {
        walAppends.inc();
        walBytes.inc(bytes);
        durableLag.update(lagMillis);
    }

    @Override
    public void sstableWritten() {
        sstablesWritten.inc();
    }

    @Override
    public void sstablesPublished(int count) {
        sstablesPublished.inc(count);
    }

    @Override
    public void backpressured(long millis) {
        backpressureMillis.inc(millis);
    }
}
