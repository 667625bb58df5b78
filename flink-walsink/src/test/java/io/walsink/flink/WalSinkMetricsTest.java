package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.ReportedMetrics.counter;
import static io.walsink.flink.ReportedMetrics.metric;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The writer's metrics reach Flink's metric system with values that match what the job did. */
class WalSinkMetricsTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(2, REPORTER.addToConfiguration(new Configuration()));

    @TempDir
    Path dir;

    @Test
    void countersGaugesAndTheDurableLagHistogramAreReported() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(200, 5);
        long n = 5_000;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.fromSequence(0, n - 1)
                .map(changes::change)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .sinkTo(WalSink.forRowData(ROW)
                        .path(dir.resolve("table").toString())
                        .primaryKey("id")
                        .createTableIfMissing(2)
                        .flushInterval(Duration.ofMillis(20))
                        .memtableMaxRows(1_000)
                        .build())
                .uid("walsink-metrics");
        JobExecutionResult result = env.execute("walsink metrics");

        Map<String, Metric> metrics = REPORTER.findMetrics(result.getJobID(), "walsink");
        long deletes = n / 5;
        assertThat(counter(metrics, "rowsIn")).isEqualTo(n - deletes);
        assertThat(counter(metrics, "deletesIn")).isEqualTo(deletes);
        assertThat(counter(metrics, "walAppends")).isPositive();
        assertThat(counter(metrics, "walBytes")).isPositive();
        assertThat(counter(metrics, "sstablesWritten")).isGreaterThanOrEqualTo(5);
        assertThat(counter(metrics, "sstablesPublished")).isEqualTo(counter(metrics, "sstablesWritten"));
        assertThat(((Histogram) metric(metrics, "durableLagMs")).getCount()).isEqualTo(counter(metrics, "walAppends"));
        assertThat(((Gauge<?>) metric(metrics, "poisoned")).getValue()).isEqualTo(0);
        // each published SSTable reports how long its first row waited to become visible
        assertThat(((Histogram) metric(metrics, "visibilityLagMs")).getCount())
                .isEqualTo(counter(metrics, "sstablesPublished"));
        assertThat((Integer) ((Gauge<?>) metric(metrics, "maxSsTablesPerShard")).getValue())
                .isBetween(1, (int) counter(metrics, "sstablesWritten"));
        // gauges keep the values of the last refresh: two buckets, first epoch, nothing left pending
        assertThat(((Gauge<?>) metric(metrics, "shards")).getValue()).isEqualTo(2);
        assertThat(((Gauge<?>) metric(metrics, "maxEpoch")).getValue()).isEqualTo(1L);
        assertThat(((Gauge<?>) metric(metrics, "pendingRows")).getValue()).isEqualTo(0L);
        for (String gauge : new String[] {"pendingBytes", "unflushedBytes"}) {
            assertThat(metric(metrics, gauge)).isInstanceOf(Gauge.class);
        }
    }
}
