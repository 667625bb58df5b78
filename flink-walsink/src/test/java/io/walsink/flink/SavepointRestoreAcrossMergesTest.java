package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.MergedGenerations;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.ShardRestore;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceRows;
import io.walsink.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore across merges as a user meets it: savepoints of a job whose sink compacts into the base
 * table and collects garbage itself (maintenance after every completed checkpoint), restored out of
 * order on a real MiniCluster.
 *
 * <ol>
 *   <li>Job A writes upserts and deletes and stops with savepoint S1;
 *   <li>job B, restored from S1, writes more and stops with savepoint S2;
 *   <li>job C, restored from S1 again (a branch), writes other rows (new keys, updates and deletes
 *       of existing ones) until the base table's merge progress shows that the sink's compaction
 *       merged generations C wrote, and stops;
 *   <li>job D, restored from S2, gets no new input, completes a checkpoint and stops.
 * </ol>
 *
 * <p>The table then holds exactly S2's rows: walsink's COMMITTED and LATEST reads, LanceDB's default
 * read, and, once a final compaction merged everything, the base table alone (lance-core scan and
 * LanceDB). D's restore logged that it reset the shards' rows in the base table. The source sends
 * change numbers through a gate and a recorder of their position (operator state), so the changes a
 * savepoint covers are exactly known: every job must restore the position its savepoint recorded.
 */
class SavepointRestoreAcrossMergesTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int KEYS = 400;
    /** The branch's keys: the first {@link #KEYS} exist, the rest are new. */
    private static final int BRANCH_KEYS = 600;

    private static final long A_CHANGES = 1_500;
    private static final long B_CHANGES = 1_500;
    private static final double CHANGES_PER_SECOND = 2_000;
    private static final long CHECKPOINT_MILLIS = 200;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path table() {
        return dir.resolve("table");
    }

    @Test
    void restoringASavepointAfterABranchTheSinkMergedEndsAsTheSavepoint() throws Exception {
        long seed = FailoverTestSupport.seed(
                "SavepointRestoreAcrossMergesTest", new SplittableRandom().nextLong(1, Long.MAX_VALUE));
        ChangeGenerator changes = new ChangeGenerator(KEYS, 4, seed);
        ChangeGenerator branch = new ChangeGenerator(BRANCH_KEYS, 3, seed + 1);

        // A: changes 0 .. A-1, then savepoint S1.
        JobClient a = start(null, A_CHANGES, mapping(changes));
        awaitPosition(A_CHANGES);
        String s1 = stop(a);
        Map<Long, String> atS1 = changes.model(A_CHANGES);
        assertThat(read(table(), ReadMode.COMMITTED)).as("S1, seed %d", seed).isEqualTo(atS1);

        // B: restored from S1, changes A .. A+B-1, then savepoint S2.
        JobClient b = start(s1, A_CHANGES + B_CHANGES, mapping(changes));
        awaitPosition(A_CHANGES + B_CHANGES);
        String s2 = stop(b);
        assertThat(Gate.RESTORED_AT).as("B restored S1's position").hasValue(A_CHANGES);
        Map<Long, String> atS2 = changes.model(A_CHANGES + B_CHANGES);
        assertThat(read(table(), ReadMode.COMMITTED)).as("S2, seed %d", seed).isEqualTo(atS2);
        Map<UUID, Long> afterB = nextGenerations();
        System.out.println("after B: next generations " + afterB + ", merged " + merged());

        // C: restored from S1, a branch writing other rows until the sink merged some of them.
        JobClient c = start(s1, Long.MAX_VALUE, mapping(branch).branch());
        awaitCondition("C completed a checkpoint (its restore is done)", () -> Gate.CHECKPOINTS.get() > 0);
        assertThat(Gate.RESTORED_AT).as("C restored S1's position").hasValue(A_CHANGES);
        Map<UUID, Long> branchGenerations = nextGenerations();
        for (Map.Entry<UUID, Long> shard : afterB.entrySet()) {
            assertThat(branchGenerations.get(shard.getKey()))
                    .as("shard %s writes the branch's generations above S2's", shard.getKey())
                    .isGreaterThanOrEqualTo(shard.getValue());
        }
        // Evidence, not time: the base table's merge progress of every shard reached a generation
        // C wrote after its restore, and the base table holds rows of the branch.
        awaitCondition(
                "the sink's compaction merged generations of the branch in every shard",
                () -> mergedAtLeast(branchGenerations) && baseHoldsBranchRows());
        System.out.println("C: first own generations " + branchGenerations + ", merged " + merged() + " after "
                + Gate.NEXT.get() + " changes");
        stop(c);

        // D: restored from S2, no new input; one checkpoint, then stop.
        try (LogCapture restores = LogCapture.of(ShardRestore.class)) {
            JobClient d = start(s2, 0, mapping(changes));
            awaitCondition("D completed a checkpoint", () -> Gate.CHECKPOINTS.get() > 0);
            stop(d);
            List<String> warnings = restores.messages(Level.WARN);
            System.out.println("D's restore warned: " + warnings);
            assertThat(Gate.RESTORED_AT).as("D restored S2's position").hasValue(A_CHANGES + B_CHANGES);

            assertThat(read(table(), ReadMode.COMMITTED))
                    .as("COMMITTED after D, seed %d", seed)
                    .isEqualTo(atS2);
            assertThat(read(table(), ReadMode.LATEST))
                    .as("LATEST after D, seed %d", seed)
                    .isEqualTo(atS2);
            assertThat(ReadPoller.lanceDbRows(table(), null))
                    .as("LanceDB's default read after D, seed %d", seed)
                    .isEqualTo(atS2);
            Compactor.compact(table().toString(), null, CompactorOptions.defaults());
            assertThat(baseRows())
                    .as("base table alone after merging, seed %d", seed)
                    .isEqualTo(atS2);
            assertThat(ReadPoller.lanceDbRows(table(), false))
                    .as("LanceDB's base-only read after merging, seed %d", seed)
                    .isEqualTo(atS2);
            assertThat(read(table(), ReadMode.COMMITTED))
                    .as("COMMITTED after merging, seed %d", seed)
                    .isEqualTo(atS2);

            assertThat(warnings)
                    .as("D's restore reset the branch's merged rows")
                    .anyMatch(m -> m.contains("were reset to base version"));
        }
    }

    /** Starts a job of change numbers below {@code limit}, restored from {@code savepoint} unless null. */
    private JobClient start(String savepoint, long limit, Mapping mapping) throws Exception {
        Gate.reset(limit);
        Configuration config = new Configuration();
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        // No restarts: a failed attempt fails the test. Two writer subtasks whose restores take the
        // maintenance lease at the same moment race for it, and the loser must not fail its attempt.
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(CHECKPOINT_MILLIS);
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, Long.MAX_VALUE, new Gate(CHANGES_PER_SECOND), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "change numbers")
                .uid("change-numbers")
                .setParallelism(1)
                .map(new Position())
                .uid("position")
                .setParallelism(1)
                .map(mapping.function())
                .uid("changes")
                .returns(WalSinkMiniClusterTest.rowDataType())
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table().toString())
                        .primaryKey("id")
                        .createTableIfMissing(4)
                        .flushInterval(Duration.ofMillis(20))
                        .memtableMaxAge(Duration.ZERO) // every checkpoint publishes a generation per shard
                        .compaction(true)
                        .garbageCollection(true, Duration.ofHours(1)) // keeps what the savepoints need
                        .maintenanceInterval(Duration.ZERO)
                        .build())
                .uid("walsink");
        return env.executeAsync("walsink savepoint restore across merges");
    }

    /** Stop-with-savepoint without drain; returns the savepoint's path once the job ended. */
    private String stop(JobClient job) throws Exception {
        String savepoint = job.stopWithSavepoint(
                        false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        return savepoint;
    }

    private static void awaitPosition(long position) throws InterruptedException {
        awaitCondition("the source sent changes below " + position, () -> Gate.NEXT.get() == position);
    }

    private static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + DEADLINE.toSeconds() + " s: " + what);
            }
            Thread.sleep(50); // polling the condition, not ordering threads
        }
    }

    /** Per shard, the generation its next SSTable gets (latest manifest). */
    private Map<UUID, Long> nextGenerations() {
        LocalObjectStore store = new LocalObjectStore(table());
        Map<UUID, Long> next = new TreeMap<>();
        for (UUID shard : HarnessSupport.shards(table())) {
            next.put(
                    shard,
                    new ManifestStore(store, shard)
                            .readLatest()
                            .map(ShardManifest::currentGeneration)
                            .orElseThrow());
        }
        return next;
    }

    private Map<UUID, Long> merged() {
        try (RootAllocator allocator = new RootAllocator()) {
            return MergedGenerations.latest(allocator, table().toString(), Map.of());
        }
    }

    private boolean mergedAtLeast(Map<UUID, Long> generations) {
        Map<UUID, Long> merged = merged();
        return generations.entrySet().stream().allMatch(g -> merged.getOrDefault(g.getKey(), 0L) >= g.getValue());
    }

    private boolean baseHoldsBranchRows() {
        return baseRows().values().stream().anyMatch(v -> v.startsWith(Mapping.BRANCH));
    }

    /** The base table alone (plain lance-core scan), id → name. */
    private Map<Long, String> baseRows() {
        Map<Long, String> rows = new TreeMap<>();
        try (RootAllocator allocator = new RootAllocator()) {
            LanceRows.scan(allocator, table().toString(), Map.of())
                    .forEach(r -> rows.put((Long) r.get("id"), String.valueOf(r.get("name"))));
        }
        return rows;
    }

    private static Mapping mapping(ChangeGenerator changes) {
        return new Mapping(changes, false);
    }

    /** Change number to row: the generator's change, or for the branch its key and kind with a value of its own. */
    private record Mapping(ChangeGenerator changes, boolean isBranch) {
        static final String BRANCH = "branch-";

        Mapping branch() {
            return new Mapping(changes, true);
        }

        MapFunction<Long, RowData> function() {
            ChangeGenerator g = changes;
            if (!isBranch) {
                return g::change;
            }
            return i -> g.isDelete(i)
                    ? GenericRowData.ofKind(RowKind.DELETE, g.keyOf(i), null)
                    : GenericRowData.of(g.keyOf(i), StringData.fromString(BRANCH + i));
        }
    }

    /**
     * For the source of change numbers: lets through, at a steady rate, change numbers below the
     * job's limit and then none (the job idles, so a savepoint covers exactly the changes below it).
     * The position is {@link Position}'s, which the source's output reaches in the same thread
     * before the source asks for the next permit. Statics: the MiniCluster runs in this JVM and one
     * job runs at a time.
     */
    static final class Gate implements RateLimiterStrategy<NumberSequenceSplit> {
        static final AtomicLong LIMIT = new AtomicLong();
        /** One more than the last change number sent; -1 until the job's position was initialised. */
        static final AtomicLong NEXT = new AtomicLong(-1);
        /** The position the job restored from its savepoint (0 for a new job). */
        static final AtomicLong RESTORED_AT = new AtomicLong(-1);
        /** Checkpoints of the running job completed (as the source's task saw them). */
        static final AtomicInteger CHECKPOINTS = new AtomicInteger();

        private final double perSecond;

        Gate(double perSecond) {
            this.perSecond = perSecond;
        }

        static void reset(long limit) {
            LIMIT.set(limit);
            NEXT.set(-1);
            RESTORED_AT.set(-1);
            CHECKPOINTS.set(0);
        }

        @Override
        public RateLimiter<NumberSequenceSplit> createRateLimiter(int parallelism) {
            if (parallelism != 1) {
                throw new IllegalArgumentException("the change numbers must come from one source subtask");
            }
            RateLimiter<NumberSequenceSplit> steady = RateLimiterStrategy.<NumberSequenceSplit>perSecond(perSecond)
                    .createRateLimiter(parallelism);
            return new RateLimiter<>() {
                @Override
                public CompletionStage<Void> acquire(int permits) {
                    return steady.acquire(permits)
                            .thenCompose(v -> NEXT.get() >= 0 && NEXT.get() < LIMIT.get()
                                    ? CompletableFuture.completedFuture(null)
                                    : new CompletableFuture<Void>()); // closed for the rest of the job
                }

                @Override
                public void notifyCheckpointComplete(long checkpointId) {
                    CHECKPOINTS.incrementAndGet();
                }
            };
        }
    }

    /** Passes change numbers through in order, keeping the position in operator state. */
    static final class Position implements MapFunction<Long, Long>, CheckpointedFunction {
        private transient ListState<Long> state;
        private transient long next;

        @Override
        public Long map(Long i) {
            if (i != next) {
                throw new IllegalStateException("change " + i + " after position " + next);
            }
            next = i + 1;
            Gate.NEXT.set(next);
            return i;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            state.update(List.of(next));
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.LONG));
            next = 0;
            for (Long restored : state.get()) {
                next = restored;
            }
            Gate.RESTORED_AT.set(next);
            Gate.NEXT.set(next);
        }
    }
}
