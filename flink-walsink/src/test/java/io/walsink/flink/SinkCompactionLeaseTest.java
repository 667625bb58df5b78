package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.ReportedMetrics.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.MergedGenerations;
import io.walsink.read.ReadMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's own compaction respects the table's compaction lease: while another compactor (here
 * a standalone one's entry) holds it, every run of the job is refused and counted, nothing is
 * merged, and nothing the job wrote is lost.
 */
class SinkCompactionLeaseTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(2, REPORTER.addToConfiguration(new Configuration()));

    @TempDir
    Path dir;

    @Test
    void theSinksCompactionIsRefusedWhileAnotherCompactorHoldsTheLease() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(200, 5);
        long n = 5_000;
        Path table = dir.resolve("table");
        WalSink<org.apache.flink.table.data.RowData> sink = WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(20))
                .memtableMaxRows(1_000)
                .compaction(true)
                .maintenanceInterval(Duration.ZERO)
                .build();
        // The entry a standalone compactor writes when it takes the lease, good for ten minutes.
        Path lease = table.resolve("_walsink/compaction-lease/" + String.format("%020d", 1));
        Files.createDirectories(lease.getParent());
        Files.writeString(
                lease, "holder=standalone-compactor\nexpires=" + (System.currentTimeMillis() + 600_000) + "\n");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(100);
        env.fromSequence(0, n - 1)
                .map(changes::change)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .sinkTo(sink)
                .uid("walsink-lease");
        JobExecutionResult result = env.execute("walsink compaction lease");

        Map<String, Metric> metrics = REPORTER.findMetrics(result.getJobID(), "walsink");
        assertThat(counter(metrics, "compactionFailures"))
                .as("compaction runs refused by the lease")
                .isPositive();
        assertThat(counter(metrics, "compactedGenerations")).isZero();
        try (RootAllocator allocator = new RootAllocator()) {
            assertThat(MergedGenerations.latest(allocator, table.toString(), Map.of()))
                    .as("nothing merged")
                    .isEmpty();
        }
        assertThat(HarnessSupport.read(table, ReadMode.COMMITTED)).isEqualTo(changes.model(n));
    }
}
