package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.ReportedMetrics.counter;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.MergedGenerations;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CompactionLeaseHolder;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
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
 * merged, and nothing the job wrote is lost. An entry its own earlier attempt left (the same job
 * id) is taken back at once.
 */
class SinkCompactionLeaseTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(2, REPORTER.addToConfiguration(new Configuration()));

    private static final ChangeGenerator CHANGES = new ChangeGenerator(200, 5);
    private static final long N = 5_000;

    @TempDir
    Path dir;

    @Test
    void theSinksCompactionIsRefusedWhileAnotherCompactorHoldsTheLease() throws Exception {
        Path table = dir.resolve("table");
        // The entry a standalone compactor writes when it takes the lease, good for ten minutes.
        writeLeaseEntry(table, "holder=standalone-compactor\nexpires=" + (System.currentTimeMillis() + 600_000) + "\n");
        JobExecutionResult result = runJob(table, new Configuration());

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
        assertThat(HarnessSupport.read(table, ReadMode.COMMITTED)).isEqualTo(CHANGES.model(N));
    }

    /**
     * An earlier attempt of this very job (a TaskManager killed while compacting)
     * left the lease held for ten minutes; the job takes it back at once instead of having every
     * compaction refused until it expires.
     */
    @Test
    void theSinkTakesBackTheLeaseItsOwnKilledAttemptLeft() throws Exception {
        Path table = dir.resolve("table");
        JobID job = JobID.generate();
        writeLeaseEntry(
                table,
                "holder=walsink job " + job + " (4242@killed-host/0a1b2c3d)\nexpires="
                        + (System.currentTimeMillis() + 600_000) + "\njob=" + job + "\n");
        Configuration conf = new Configuration();
        conf.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, job.toHexString());
        JobExecutionResult result = runJob(table, conf);
        assertThat(result.getJobID()).isEqualTo(job);

        // Every completed checkpoint starts a maintenance run (the final one at least), and each takes
        // the lease first: whether a run found generations to merge depends on timing, the lease does not.
        Map<String, Metric> metrics = REPORTER.findMetrics(result.getJobID(), "walsink");
        assertThat(counter(metrics, "compactionFailures"))
                .as("compaction runs refused by the lease its dead attempt left")
                .isZero();
        try (LocalObjectStore store = new LocalObjectStore(table)) {
            CompactionLeaseHolder last = CompactionLeaseHolder.read(store).orElseThrow();
            assertThat(last.holder())
                    .as("the lease's last holder: the live job took it back from its dead attempt")
                    .contains(job.toString())
                    .doesNotContain("killed-host");
            assertThat(last.heldAt(Instant.now()))
                    .as("released at the job's end")
                    .isFalse();
        }
        assertThat(HarnessSupport.read(table, ReadMode.COMMITTED)).isEqualTo(CHANGES.model(N));
    }

    private static void writeLeaseEntry(Path table, String entry) throws Exception {
        Path lease = table.resolve("_walsink/compaction-lease/" + String.format("%020d", 1));
        Files.createDirectories(lease.getParent());
        Files.writeString(lease, entry);
    }

    private static JobExecutionResult runJob(Path table, Configuration conf) throws Exception {
        WalSink<org.apache.flink.table.data.RowData> sink = WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(20))
                .memtableMaxRows(1_000)
                .compaction(true)
                .maintenanceInterval(Duration.ZERO)
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(100);
        env.fromSequence(0, N - 1)
                .map(CHANGES::change)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .sinkTo(sink)
                .uid("walsink-lease");
        return env.execute("walsink compaction lease");
    }
}
