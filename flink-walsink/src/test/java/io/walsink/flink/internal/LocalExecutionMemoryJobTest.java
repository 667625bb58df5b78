package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.MiniClusters;
import io.walsink.testing.LogCapture;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local execution as Flink starts it, nothing about memory configured: Flink gives each TaskManager
 * of a MiniCluster 1 TiB of task off-heap memory (Flink 2.x; Flink 1.x stated Long.MAX_VALUE bytes)
 * to mean "unlimited". A writer there runs with the option defaults (an Arrow cap of 1168 MiB and an
 * unflushed budget of 1 GiB a subtask), not with budgets derived from a terabyte, which would let
 * its memtables grow without bound.
 */
class LocalExecutionMemoryJobTest {
    private static final long MIB = 1L << 20;

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    @Test
    void aWriterInLocalExecutionRunsWithTheOptionDefaults() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(500, 9);
        long n = 2_000;
        Path table = dir.resolve("t");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        MemoryJobs.changes(env, changes, n).sinkTo(MemoryJobs.sink(table).build()); // no memory setting
        List<String> opened;
        List<AllocatorLog.Closed> closed;
        try (LogCapture writerLog = LogCapture.of(ShardWriterOperator.class, Level.INFO);
                AllocatorLog allocators = AllocatorLog.capture()) {
            env.execute("walsink in local execution");
            opened = writerLog.messages(Level.INFO);
            closed = allocators.closed();
        }

        assertThat(MemoryJobs.read(table)).isEqualTo(changes.model(n));
        assertThat(opened.stream().filter(m -> m.contains("opened on " + table)))
                .as("writers opened")
                .hasSize(2)
                .allSatisfy(m -> assertThat(m)
                        .contains("off-heap cap " + 1168 * MIB + " bytes (1168m)")
                        .contains("as set or defaulted"));
        assertThat(closed.stream()
                        .filter(u -> u.owner().contains(table.toString())
                                && !u.owner().startsWith("maintenance of")))
                .as("writers' allocators")
                .hasSize(2)
                .allSatisfy(u -> assertThat(u.cap()).isEqualTo(1168 * MIB));
    }
}
