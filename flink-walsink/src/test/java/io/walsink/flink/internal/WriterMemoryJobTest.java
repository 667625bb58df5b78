package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.MiniClusters;
import io.walsink.flink.internal.memory.WriterMemory;
import io.walsink.testing.LogCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster configured as Flink's defaults configure a TaskManager, in small: no task off-heap
 * memory (0, stated, as Flink's scripts pass it) and 64 MiB of managed memory over two slots, 32 MiB
 * per slot. A writer with the default options takes its memory from its slot's managed memory and
 * stays within it; settings that cannot fit fail the job once, naming them, although the restart
 * strategy would retry five times; settings that fit run.
 */
class WriterMemoryJobTest {
    private static final long MIB = 1L << 20;
    /** What each slot's memory manager holds: the managed memory over the two slots. */
    private static final long SLOT_MANAGED = 32 * MIB;

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, stockMemory());

    @TempDir
    Path dir;

    /**
     * 100,000 changes of about 520 bytes (52 MB) through two writer subtasks of 32 MiB each: the
     * writers' caps are what their managed share gives (not the 1168 MiB of the defaults in local
     * execution), they reserved it from Flink's memory manager, used more than one memtable of it,
     * never more than the cap, and the table is the model.
     */
    @Test
    void theDefaultsTakeTheSlotsManagedMemoryAndStayWithinIt() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(20_000, 9);
        long n = 100_000;
        Path table = dir.resolve("defaults");
        List<AllocatorLog.Closed> closed;
        StreamExecutionEnvironment env = retryingFiveTimes();
        env.enableCheckpointing(60_000); // the final checkpoint publishes; memtables fill up to their size
        MemoryJobs.changes(env, changes, n)
                .map(MemoryJobs::padded)
                .returns(InternalTypeInfo.of(MemoryJobs.ROW))
                .setParallelism(1)
                .sinkTo(MemoryJobs.sink(table).build()); // no memory setting
        List<String> opened;
        try (LogCapture writerLog = LogCapture.of(ShardWriterOperator.class, Level.INFO);
                AllocatorLog allocators = AllocatorLog.capture()) {
            env.execute("walsink on managed memory");
            opened = writerLog.messages(Level.INFO);
            closed = allocators.closed();
        }

        Map<Long, String> model = new TreeMap<>(changes.model(n));
        model.replaceAll((k, v) -> v + MemoryJobs.PADDING);
        assertThat(MemoryJobs.read(table)).isEqualTo(model);

        long cap = SLOT_MANAGED / 9 * 8; // an eighth of the cap is left for lance-core's native memory
        List<AllocatorLog.Closed> writers = closed.stream()
                .filter(u -> u.owner().contains(table.toString()) && !u.owner().startsWith("maintenance of"))
                .toList();
        System.out.println("writers' memory: " + writers);
        assertThat(cap + cap / 8).as("managed memory a writer reserves").isLessThanOrEqualTo(SLOT_MANAGED);
        assertThat(opened.stream().filter(m -> m.contains("opened on " + table)))
                .as("writers opened")
                .hasSize(2)
                .allSatisfy(m ->
                        assertThat(m).contains("managed memory reserved " + WriterMemory.human(cap + cap / 8) + " of"));
        assertThat(writers).hasSize(2).allSatisfy(u -> {
            assertThat(u.cap()).as("Arrow cap of %s", u.owner()).isEqualTo(cap);
            assertThat(u.peak())
                    .as("most Arrow memory %s held at once", u.owner())
                    .isGreaterThan(WriterMemory.MIN_MEMTABLE)
                    .isLessThanOrEqualTo(cap);
        });
    }

    /**
     * Many buckets per subtask: 256 buckets over the same two 32 MiB slots, so each writer keeps
     * 128 memtables (and their open batches) in the cap one memtable had above, and runs up to four
     * SSTable writes at once. The subtask's budget, not the bucket count, bounds what the writers
     * hold: each held at most its cap, wrote SSTables to stay under it, and the table is the model,
     * all in the first attempt (a writer that reached its cap fails, and the restart that follows
     * would hide it). The rows' checks against the allocator keep the task thread under its
     * pressure mark; each SSTable write's reservation keeps the I/O threads within the cap
     * (ShardWriterFlushMemoryTest shows the overlap deterministically).
     */
    @Test
    void twoHundredFiftySixBucketsStayWithinTheSameManagedMemory(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        ChangeGenerator changes = new ChangeGenerator(20_000, 11);
        long n = 100_000;
        Path table = dir.resolve("buckets-256");
        StreamExecutionEnvironment env = retryingFiveTimes();
        env.enableCheckpointing(60_000);
        MemoryJobs.changes(env, changes, n)
                .map(MemoryJobs::padded)
                .returns(InternalTypeInfo.of(MemoryJobs.ROW))
                .setParallelism(1)
                .sinkTo(MemoryJobs.sink(table).createTableIfMissing(256).build()); // no memory setting
        List<AllocatorLog.Closed> closed;
        try (AllocatorLog allocators = AllocatorLog.capture()) {
            JobClient job = env.executeAsync("walsink, 256 buckets on managed memory");
            job.getJobExecutionResult().get();
            closed = allocators.closed();
            assertThat(highestAttempt(cluster, job.getJobID())).as("restarts").isZero();
        }

        Map<Long, String> model = new TreeMap<>(changes.model(n));
        model.replaceAll((k, v) -> v + MemoryJobs.PADDING);
        assertThat(MemoryJobs.read(table)).isEqualTo(model);
        long cap = SLOT_MANAGED / 9 * 8;
        List<AllocatorLog.Closed> writers = closed.stream()
                .filter(u -> u.owner().contains(table.toString()) && !u.owner().startsWith("maintenance of"))
                .toList();
        System.out.println("writers' memory, 256 buckets: " + writers);
        assertThat(writers).hasSize(2).allSatisfy(u -> {
            assertThat(u.cap()).as("Arrow cap of %s", u.owner()).isEqualTo(cap);
            assertThat(u.peak())
                    .as("most Arrow memory %s held at once", u.owner())
                    .isLessThanOrEqualTo(cap);
        });
        try (var shards = Files.list(table.resolve("_mem_wal"))) {
            assertThat(shards.filter(Files::isDirectory).count())
                    .as("shards written")
                    .isEqualTo(256);
        }
    }

    @Test
    void settingsThatCannotFitFailTheJobOnceNamingThem(@InjectMiniCluster MiniCluster cluster) throws Exception {
        StreamExecutionEnvironment env = retryingFiveTimes();
        MemoryJobs.changes(env, new ChangeGenerator(100, 7), 1_000)
                .sinkTo(MemoryJobs.sink(dir.resolve("t"))
                        .maxUnflushedBytesPerSubtask(256 * MIB)
                        .build());
        JobClient job = env.executeAsync("walsink over its memory budget");

        // 256 + 128 + 2 x 8 MiB of Arrow cap, + 50 MiB for lance-core, against 32 MiB per slot
        assertThatThrownBy(() -> job.getJobExecutionResult().get())
                .hasStackTraceContaining(
                        "needs 471859200 bytes (450m) with sink.max-unflushed-bytes-per-subtask as set")
                .hasStackTraceContaining("its slot gives it 33554432 bytes (32m)")
                .hasStackTraceContaining("taskmanager.memory.managed.size");
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
    void settingsWithinTheSlotsShareRun() throws Exception {
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
        List<String> lines;
        try (LogCapture log = LogCapture.of(ShardWriterOperator.class, Level.INFO)) {
            env.execute("walsink within its off-heap budget");
            lines = log.messages(Level.INFO);
        }

        assertThat(MemoryJobs.read(table)).isEqualTo(changes.model(n));
        assertThat(lines)
                .anySatisfy(m -> assertThat(m)
                        .contains("opened on")
                        .contains("off-heap cap 16777216 bytes (16m)")
                        .contains("as set or defaulted")
                        .contains("managed memory reserved 18874368 bytes (18m) of its share 33554432 bytes (32m)"))
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

    private static Configuration stockMemory() {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.ZERO);
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
        return conf;
    }
}
