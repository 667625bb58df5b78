package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.MiniClusters;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whichever way a job ends (finished, failed and restarted, cancelled), the TaskManager gets back
 * what the writers held: every writer allocator closed with nothing outstanding, no walsink thread
 * left, and the JVM's direct memory where it was (not kept by Arrow's Netty pool).
 */
class MemoryReleaseTest {
    /** Reads the writers' unflushed memory while a job runs. */
    private static final InMemoryReporter REPORTER = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(2, REPORTER.addToConfiguration(new Configuration()));

    /** Flink's own buffers come and go a little; Netty's Arrow pool kept tens of MiB after such a job. */
    private static final long DIRECT_SLACK = 8L << 20;

    @TempDir
    Path dir;

    private AllocatorLog allocators;
    private long directBefore;
    private Set<Thread> threadsBefore;

    @BeforeEach
    void baseline() {
        allocators = AllocatorLog.capture();
        directBefore = direct();
        threadsBefore = walsinkThreads(); // other tests' harnesses in this JVM may have left some
    }

    @AfterEach
    void everythingReturned() {
        long directAfter = direct();
        System.out.printf("direct memory before %d, after %d bytes%n", directBefore, directAfter);
        allocators.close();
        List<String> opened = allocators.opened();
        assertThat(opened).as("allocators opened (the log is read at all)").isNotEmpty();
        assertThat(allocators.closed())
                .extracting(AllocatorLog.Closed::owner)
                .as("allocators closed with nothing outstanding")
                .containsExactlyInAnyOrderElementsOf(opened);
        assertThat(allocators.leaks())
                .as("allocators closed with bytes still allocated")
                .isEmpty();
        Set<Thread> left = walsinkThreads();
        left.removeAll(threadsBefore);
        assertThat(left).as("walsink threads still running").isEmpty();
        assertThat(directAfter).as("direct memory").isLessThanOrEqualTo(directBefore + DIRECT_SLACK);
    }

    @Test
    void aFinishedJob() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(5_000, 9);
        long n = 100_000;
        Path table = dir.resolve("t");
        StreamExecutionEnvironment env = env();
        env.enableCheckpointing(200);
        MemoryJobs.changes(env, changes, n).sinkTo(smallMemtables(table));
        env.execute("walsink finishes");

        assertThat(MemoryJobs.read(table)).isEqualTo(changes.model(n));
    }

    @Test
    void aFailedAttempt() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(5_000, 9);
        long n = 60_000;
        Path table = dir.resolve("t");
        FailOnce.FIRED.set(false);
        StreamExecutionEnvironment env = env();
        env.enableCheckpointing(100);
        env.fromSequence(0, n - 1)
                .setParallelism(1)
                .map(new FailOnce(changes, n / 2))
                .returns(InternalTypeInfo.of(MemoryJobs.ROW))
                .setParallelism(1)
                .sinkTo(smallMemtables(table));
        env.execute("walsink fails once");

        assertThat(FailOnce.FIRED).as("the injected failure fired").isTrue();
        assertThat(MemoryJobs.read(table)).isEqualTo(changes.model(n));
    }

    @Test
    void aCancelledJob() throws Exception {
        StreamExecutionEnvironment env = env();
        env.enableCheckpointing(200);
        MemoryJobs.changes(env, new ChangeGenerator(5_000, 9), Long.MAX_VALUE).sinkTo(smallMemtables(dir.resolve("t")));
        JobClient job = env.executeAsync("walsink cancelled");
        awaitTrue(() -> unflushedBytes(job) > (1 << 20), "writers holding memory");

        job.cancel().get();
        awaitTrue(() -> job.getJobStatus().get().isGloballyTerminalState(), "the job ended");
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    }

    private static io.walsink.flink.WalSink<RowData> smallMemtables(Path table) {
        return MemoryJobs.sink(table)
                .memtableMaxBytes(4 << 20)
                .walMaxBufferBytes(1 << 20)
                .maxUnflushedBytes(8 << 20)
                .maxUnflushedBytesPerSubtask(16 << 20)
                .build();
    }

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        return env;
    }

    /** The writers' memtable memory, as their last gauge refresh saw it. */
    private static long unflushedBytes(JobClient job) {
        return REPORTER.getMetricsByIdentifiers(job.getJobID()).entrySet().stream()
                .filter(e -> e.getKey().endsWith("walsink.unflushedBytes"))
                .mapToLong(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
                .sum();
    }

    private static long direct() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .mapToLong(BufferPoolMXBean::getMemoryUsed)
                .sum();
    }

    private static Set<Thread> walsinkThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("walsink-"))
                .collect(Collectors.toCollection(HashSet::new));
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    /** Polls a condition the job makes true; fails after a minute. */
    private static void awaitTrue(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** Fails the first attempt once {@code failAt} changes went through. */
    static final class FailOnce extends RichMapFunction<Long, RowData> {
        static final AtomicBoolean FIRED = new AtomicBoolean();
        private final ChangeGenerator changes;
        private final long failAt;

        FailOnce(ChangeGenerator changes, long failAt) {
            this.changes = changes;
            this.failAt = failAt;
        }

        @Override
        public RowData map(Long i) {
            if (i == failAt && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
                FIRED.set(true);
                throw new IllegalStateException("injected failure at change " + i);
            }
            return changes.change(i);
        }
    }
}
