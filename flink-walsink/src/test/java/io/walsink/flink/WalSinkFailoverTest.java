package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.MergedGenerations;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upserts and deletes with failures injected at random points (a failing map, WAL and manifest
 * writes that fail or lose their acknowledgement), checkpoints every 150 ms and restarts: the
 * final table equals the model, injected store faults did fire, and a reader polling the published
 * table throughout read it many times without ever seeing a key go back to an older value or
 * vanish without a later delete in the input.
 */
class WalSinkFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** Committed reads (of an existing table) each run must have completed, at least. */
    private static final int MIN_POLLS = 5;
    /** Reads that found a published table other than the one the read before found, at least. */
    private static final int MIN_CHANGES_SEEN = 3;

    private static final double RUN_SECONDS = 2.5;

    @TempDir
    Path dir;

    /** Whether the sink compacts into the base table while the job runs (after every checkpoint). */
    private boolean compaction;

    private Path table() {
        return dir.resolve("table");
    }

    private CommittedReadPoller poller(ChangeGenerator changes, long n) {
        return new CommittedReadPoller(table(), changes, n, 25);
    }

    /**
     * The source sends {@code n} changes over about {@code RUN_SECONDS}, so that many checkpoints
     * complete (and publish) while the committed reader polls.
     */
    private Map<Long, String> runWithFailures(ChangeGenerator changes, long n, long seed, CommittedReadPoller poller)
            throws Exception {
        FailoverTestSupport.reset(6);
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, n, RateLimiterStrategy.perSecond(n / RUN_SECONDS), Types.LONG);
        return run(
                n,
                poller,
                env -> env.fromSource(source, WatermarkStrategy.noWatermarks(), "change numbers")
                        .setParallelism(1)
                        .map(new FailoverTestSupport.FailOnceAt(n / 5, n / 2, n * 4 / 5))
                        .setParallelism(1)
                        .map(changes::change)
                        .returns(WalSinkMiniClusterTest.rowDataType())
                        .setParallelism(1),
                FailoverTestSupport.flaky(0.02, seed),
                150,
                2_000);
    }

    private Map<Long, String> run(
            long n,
            CommittedReadPoller poller,
            Function<StreamExecutionEnvironment, DataStream<RowData>> changes,
            WalSinkOptions.StoreWrapper store,
            long checkpointInterval,
            long memtableMaxRows)
            throws Exception {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointInterval);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table().toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(20))
                .memtableMaxRows(memtableMaxRows)
                .compaction(compaction)
                .garbageCollection(compaction, Duration.ofSeconds(3))
                .maintenanceInterval(Duration.ZERO)
                .storeWrapper(store)
                .build();
        changes.apply(env).sinkTo(sink).uid("walsink-failover");

        poller.start();
        try {
            env.execute("walsink failover");
        } finally {
            poller.close();
        }
        return read(table(), ReadMode.COMMITTED);
    }

    private void assertReaderSawNoViolations(CommittedReadPoller poller, long seed) {
        System.out.println(
                "committed reader: " + poller + "; store faults fired: " + FailoverTestSupport.injectedStoreFaults());
        assertThat(poller.polls())
                .as("committed reads of seed %d: %s", seed, poller)
                .isGreaterThanOrEqualTo(MIN_POLLS);
        assertThat(poller.changesSeen())
                .as("committed reads that saw the table change, seed %d: %s", seed, poller)
                .isGreaterThanOrEqualTo(MIN_CHANGES_SEEN);
        assertThat(poller.violations())
                .as("what the committed reader saw, seed %d; %s", seed, manifestHistory(table()))
                .isEmpty();
    }

    private static String manifestHistory(Path table) {
        StringBuilder b = new StringBuilder("manifests:");
        io.walsink.storage.LocalObjectStore store = new io.walsink.storage.LocalObjectStore(table);
        for (java.util.UUID shard : HarnessSupport.shards(table)) {
            io.walsink.format.manifest.ManifestStore m = new io.walsink.format.manifest.ManifestStore(store, shard);
            for (long v : m.listVersions()) {
                var x = m.read(v);
                b.append("\n ")
                        .append(shard.toString(), 0, 8)
                        .append(" v")
                        .append(v)
                        .append(" e")
                        .append(x.writerEpoch())
                        .append(" ra")
                        .append(x.replayAfterWalEntryPosition())
                        .append(" cg")
                        .append(x.currentGeneration())
                        .append(" ")
                        .append(x.sstables().stream()
                                .map(t -> t.generation() + ":" + t.path())
                                .toList());
            }
        }
        return b.toString();
    }

    @Test
    void upsertsAndDeletesSurviveFailuresAndEqualTheModel() throws Exception {
        long seed = FailoverTestSupport.seed("upsertsAndDeletesSurviveFailuresAndEqualTheModel", 8_101);
        ChangeGenerator changes = new ChangeGenerator(300, 7);
        long n = 30_000;
        CommittedReadPoller poller = poller(changes, n);
        Map<Long, String> table = runWithFailures(changes, n, seed, poller);
        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(FailoverTestSupport.injectedStoreFaults())
                .as("store faults fired, seed %d", seed)
                .isPositive();
        assertThat(table).as("seed %d", seed).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(poller, seed);
    }

    /**
     * The first attempt writes rows to the WAL and fails before any checkpoint completed; the
     * next starts the source over, and checkpoints complete (publishing) while it re-sends
     * changes older than those rows. If it replayed the failed attempt's WAL rows, a published
     * value would later go back to an older one.
     */
    @Test
    void aRestartBeforeTheFirstCheckpointRollsBackTheFailedAttemptsRows() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, 0);
        long n = 40_000;
        long failAt = n / 2;
        CommittedReadPoller poller = poller(changes, n);
        FailoverTestSupport.reset(0);
        RestartBeforeFirstCheckpoint.reset(poller);
        long[] holds = {failAt / 4, failAt / 2, failAt * 3 / 4};
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                i -> i, n, new RestartBeforeFirstCheckpoint.HoldWhileResending(failAt, holds), Types.LONG);
        FlatMapFunction<Long, Long> failure =
                new RestartBeforeFirstCheckpoint.FirstAttemptFailsAfterItsRowsAreDurable(table(), changes, failAt);
        Map<Long, String> table = run(
                n,
                poller,
                env -> env.fromSource(source, WatermarkStrategy.noWatermarks(), "change numbers")
                        .setParallelism(1)
                        .flatMap(failure)
                        .setParallelism(1)
                        .map(changes::change)
                        .returns(WalSinkMiniClusterTest.rowDataType())
                        .setParallelism(1),
                // small memtables: SSTables to publish at each hold
                RestartBeforeFirstCheckpoint.signallingWalPuts(store -> store),
                200,
                500);

        // the interleaving happened: all of the first attempt's rows were durable in the WAL when
        // it failed, and no checkpoint had completed ...
        assertThat(RestartBeforeFirstCheckpoint.FIRST_ATTEMPT).isFalse();
        assertThat(RestartBeforeFirstCheckpoint.WAL_PUTS_AT_FAILURE.get()).isPositive();
        assertThat(RestartBeforeFirstCheckpoint.CHECKPOINTS_COMPLETED_IN_FIRST_ATTEMPT)
                .hasValue(0);
        // ... then checkpoints completed, each followed by a committed read, while older changes were re-sent
        assertThat(RestartBeforeFirstCheckpoint.HOLDS_RELEASED_AFTER_A_READ).hasValue(holds.length);
        assertThat(RestartBeforeFirstCheckpoint.CHECKPOINTS_COMPLETED_WHILE_RESENDING.get())
                .isGreaterThanOrEqualTo(holds.length);
        System.out.println("restart before the first checkpoint: " + RestartBeforeFirstCheckpoint.WAL_PUTS_AT_FAILURE
                + " WAL entries at the failure, " + RestartBeforeFirstCheckpoint.ATTEMPTS_FAILED_AT_A_CHECKPOINT
                + " attempts failed at a checkpoint before, "
                + RestartBeforeFirstCheckpoint.CHECKPOINTS_COMPLETED_WHILE_RESENDING
                + " checkpoints completed while re-sending; reader: " + poller);
        assertThat(table).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(poller, 0);
    }

    /**
     * Compaction into the base table and garbage collection (3 s retention) run inside the failing
     * job after every completed checkpoint:
     * the table still ends equal to the model, the committed reader sees no key go back or vanish
     * while generations move from SSTables into the base table, and once everything is merged a
     * plain lance-core scan of the base table (no MemWAL) holds exactly the model's rows.
     */
    @Test
    void compactionInsideTheJobSurvivesFailures() throws Exception {
        long seed = FailoverTestSupport.seed("compactionInsideTheJobSurvivesFailures", 8_105);
        ChangeGenerator changes = new ChangeGenerator(300, 7);
        long n = 30_000;
        CommittedReadPoller poller = poller(changes, n);
        compaction = true;
        Map<Long, String> table = runWithFailures(changes, n, seed, poller);
        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(FailoverTestSupport.injectedStoreFaults())
                .as("store faults fired, seed %d", seed)
                .isPositive();
        assertThat(table).as("seed %d", seed).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(poller, seed);
        try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
            assertThat(MergedGenerations.latest(allocator, table().toString(), Map.of()))
                    .as("generations the job's compaction merged")
                    .isNotEmpty();
            Compactor.compact(
                    table().toString(), null, CompactorOptions.defaults()); // whatever the last checkpoint published
            Map<Long, String> base = new HashMap<>();
            LanceRows.scan(allocator, table().toString(), Map.of())
                    .forEach(r -> base.put((Long) r.get("id"), String.valueOf(r.get("name"))));
            assertThat(base).as("plain base table scan, seed %d", seed).isEqualTo(changes.model(n));
        }
        assertThat(read(table(), ReadMode.LATEST)).isEqualTo(changes.model(n));
        // The job's garbage collection removed history: fewer manifest versions remain than were written.
        LocalObjectStore store = new LocalObjectStore(table());
        long written = 0;
        long kept = 0;
        for (java.util.UUID shard : HarnessSupport.shards(table())) {
            var manifests = new io.walsink.format.manifest.ManifestStore(store, shard);
            List<Long> versions = manifests.listVersions();
            written += versions.get(versions.size() - 1);
            kept += versions.size();
        }
        assertThat(kept).as("manifest versions kept of %d written", written).isLessThan(written);
    }

    @Test
    void upsertOnlyRunIsReadTheSameByLanceCore() throws Exception {
        long seed = FailoverTestSupport.seed("upsertOnlyRunIsReadTheSameByLanceCore", 8_103);
        ChangeGenerator changes = new ChangeGenerator(400, 0);
        long n = 20_000;
        CommittedReadPoller poller = poller(changes, n);
        Map<Long, String> table = runWithFailures(changes, n, seed, poller);
        assertThat(FailoverTestSupport.injectedStoreFaults())
                .as("store faults fired, seed %d", seed)
                .isPositive();
        assertThat(table).as("seed %d", seed).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(poller, seed);
        Path path = table();
        Map<Long, String> lance = new HashMap<>();
        LocalObjectStore store = new LocalObjectStore(path);
        try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
            LanceOracle.scan(
                            allocator,
                            path.toString(),
                            Map.of(),
                            LanceOracle.snapshots(store, HarnessSupport.shards(path)),
                            List.of("id", "name"))
                    .forEach(r -> lance.put((Long) r.get("id"), String.valueOf(r.get("name"))));
        }
        assertThat(lance).isEqualTo(changes.model(n));
    }
}
