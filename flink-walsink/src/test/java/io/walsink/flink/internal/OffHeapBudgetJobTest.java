package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.MiniClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster whose TaskManager gives each of its two slots 32 MiB of task off-heap memory: a writer
 * whose cap does not fit fails the job once, naming the option and the amount, although the
 * restart strategy would retry five times; a writer whose cap fits runs.
 */
class OffHeapBudgetJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, limitedOffHeap());

    @TempDir
    Path dir;

    @Test
    void aCapOverTheSlotsShareFailsTheJobOnceWithTheOptionsName(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        StreamExecutionEnvironment env = retryingFiveTimes();
        MemoryJobs.changes(env, new ChangeGenerator(100, 7), 1_000)
                .sinkTo(MemoryJobs.sink(dir.resolve("t")).build()); // default cap: 1168 MiB
        JobClient job = env.executeAsync("walsink over its off-heap budget");

        assertThatThrownBy(() -> job.getJobExecutionResult().get())
                .hasStackTraceContaining("needs 1224736768 bytes (1168m) of off-heap memory")
                .hasStackTraceContaining("taskmanager.memory.task.off-heap.size is 33554432 bytes (32m)")
                .hasStackTraceContaining("set taskmanager.memory.task.off-heap.size to at least 2449473536 bytes");
        assertThat(highestAttempt(cluster, job.getJobID())).isZero();
    }

    /**
     * The control: the same restart strategy does retry an ordinary failure, so attempt 0 above
     * means something. Only "retried" is asserted: with region failover the failing record may
     * land in another source subtask's region after a restart, so no one vertex need reach the
     * strategy's last attempt.
     */
    @Test
    void anOrdinaryFailureIsRetried(@InjectMiniCluster MiniCluster cluster) throws Exception {
        StreamExecutionEnvironment env = retryingFiveTimes();
        env.fromSequence(0, 10)
                .map(i -> {
                    if (i == 5) {
                        throw new IllegalStateException("injected");
                    }
                    return i;
                })
                .sinkTo(new org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink<>());
        JobClient job = env.executeAsync("always failing");

        assertThatThrownBy(() -> job.getJobExecutionResult().get()).hasStackTraceContaining("injected");
        assertThat(highestAttempt(cluster, job.getJobID())).isPositive();
    }

    /** Also: the writer's open and finish lines come from its own io.walsink logger, with the cap. */
    @Test
    void aCapWithinTheSlotsShareRuns() throws Exception {
        List<LogEvent> events = new CopyOnWriteArrayList<>();
        AbstractAppender capture = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                events.add(event.toImmutable());
            }
        };
        capture.start();
        Logger logger = (Logger) LogManager.getLogger(ShardWriterOperator.class);
        Level level = logger.getLevel();
        logger.addAppender(capture); // creates the logger's own configuration: set its level after
        logger.setLevel(Level.INFO);
        ChangeGenerator changes = new ChangeGenerator(500, 9);
        long n = 5_000;
        Path table = dir.resolve("t");
        StreamExecutionEnvironment env = retryingFiveTimes();
        env.enableCheckpointing(100);
        MemoryJobs.changes(env, changes, n)
                .sinkTo(MemoryJobs.sink(table)
                        .memtableMaxBytes(4 << 20)
                        .walMaxBufferBytes(1 << 20)
                        .maxUnflushedBytes(8 << 20)
                        .maxUnflushedBytesPerSubtask(8 << 20)
                        .maxOffHeapBytesPerSubtask(16 << 20)
                        .build());
        try {
            env.execute("walsink within its off-heap budget");
        } finally {
            logger.removeAppender(capture);
            logger.setLevel(level);
        }

        assertThat(MemoryJobs.read(table)).isEqualTo(changes.model(n));
        assertThat(events.stream()
                        .filter(e -> e.getLoggerName().equals("io.walsink.flink.internal.ShardWriterOperator"))
                        .map(e -> e.getMessage().getFormattedMessage()))
                .anySatisfy(m -> assertThat(m).contains("opened on").contains("off-heap cap 16777216 bytes (16m)"))
                .anySatisfy(m -> assertThat(m).contains("finished:"));
    }

    private static StreamExecutionEnvironment retryingFiveTimes() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        return env;
    }

    private static int highestAttempt(MiniCluster cluster, JobID job) throws Exception {
        return StreamSupport.stream(
                        cluster.getArchivedExecutionGraph(job)
                                .get()
                                .getAllExecutionVertices()
                                .spliterator(),
                        false)
                .map(AccessExecutionVertex::getCurrentExecutionAttempt)
                .mapToInt(a -> a.getAttemptNumber())
                .max()
                .orElseThrow();
    }

    private static Configuration limitedOffHeap() {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.ofMebiBytes(64));
        return conf;
    }
}
