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
import org.apache.flink.configuration.CheckpointingOptions;
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
 * table throughout read it many times without ever seeing a key go back to an older value, vanish
 * without a later delete in the input or show a value a completed checkpoint did not cover, and
 * without a failed read (see {@link ReadPoller}; with compaction on, the base table alone and
 * LanceDB are polled too).
 */
class WalSinkFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** Committed reads (of an existing table) each run must have completed, at least. */
    private static final int MIN_POLLS = 5;
    /** Reads that found a published table other than the one the read before found, at least. */
    private static final int MIN_CHANGES_SEEN = 3;

    private static final double RUN_SECONDS = 2.5;
    /** Longer, so that LanceDB (about a second per read, in a Node process) reads the table often. */
    private static final double COMPACTION_RUN_SECONDS = 6;
    /** Reads with rows of the base table alone (compaction merged something), at least. */
    private static final int MIN_BASE_READS = 5;

    private static final int MIN_BASE_CHANGES_SEEN = 2;
    /** LanceDB reads with rows, at least. */
    private static final int MIN_LANCEDB_READS = 2;

    private static final int MIN_LANCEDB_CHANGES_SEEN = 1;

    @TempDir
    Path dir;

    /** Whether the sink compacts into the base table while the job runs (after every checkpoint). */
    private boolean compaction;

    /** Buckets of the table the sink creates. */
    private int buckets = 4;

    /** {@code sink.wal.max-appends-per-second} of each writer subtask. */
    private int walAppendsPerSecond = SinkOptions.WAL_MAX_APPENDS_PER_SECOND.defaultValue();

    private Path table() {
        return dir.resolve("table");
    }

    /** The committed reader, bounded by the input alone. */
    private ReadPoller poller(ChangeGenerator changes, long n) {
        return ReadPoller.committed(table(), changes, n, 25);
    }

    /**
     * The source sends {@code n} changes over about {@code seconds}, so that many checkpoints
     * complete (and publish) while the readers poll. The readers' values are bounded by what
     * completed checkpoints cover.
     */
    private Map<Long, String> runWithFailures(
            ChangeGenerator changes, long n, long seed, double seconds, List<ReadPoller> pollers) throws Exception {
        FailoverTestSupport.reset(6);
        // what a reader may see at most, asked after its read ended (see CheckpointCovers)
        CheckpointCovers covers =
                new CheckpointCovers(List.of(dir.resolve("checkpoints")), List.of(dir.resolve("covers")), n);
        pollers.forEach(p -> p.coveredBy(covers::covered));
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, n, RateLimiterStrategy.perSecond(n / seconds), Types.LONG);
        return run(
                n,
                pollers,
                env -> env.fromSource(source, WatermarkStrategy.noWatermarks(), "change numbers")
                        .setParallelism(1)
                        .map(new FailoverTestSupport.FailOnceAt(n / 5, n / 2, n * 4 / 5))
                        .setParallelism(1)
                        .map(new CheckpointCovers.Recorder(dir.resolve("covers")))
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
            List<ReadPoller> pollers,
            Function<StreamExecutionEnvironment, DataStream<RowData>> changes,
            WalSinkOptions.StoreWrapper store,
            long checkpointInterval,
            long memtableMaxRows)
            throws Exception {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        // on disk: a reader tells completed checkpoints by their chk-N/_metadata (CheckpointCovers)
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                dir.resolve("checkpoints").toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointInterval);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table().toString())
                .primaryKey("id")
                .createTableIfMissing(buckets)
                .flushInterval(Duration.ofMillis(20))
                .walMaxAppendsPerSecond(walAppendsPerSecond)
                .memtableMaxRows(memtableMaxRows)
                .compaction(compaction)
                .garbageCollection(compaction, Duration.ofSeconds(3))
                .maintenanceInterval(Duration.ZERO)
                .storeWrapper(store)
                .build();
        changes.apply(env).sinkTo(sink).uid("walsink-failover");

        pollers.forEach(ReadPoller::start);
        try {
            env.execute("walsink failover");
            for (ReadPoller poller : pollers) {
                poller.awaitReadsWithRows(Math.max(MIN_POLLS, MIN_BASE_READS));
            }
        } finally {
            for (ReadPoller poller : pollers) {
                poller.close();
            }
        }
        return read(table(), ReadMode.COMMITTED);
    }

    private void assertReaderSawNoViolations(ReadPoller poller, long seed) {
        assertReaderSawNoViolations(poller, seed, MIN_POLLS, MIN_CHANGES_SEEN);
    }

    private void assertReaderSawNoViolations(ReadPoller poller, long seed, int minReadsWithRows, int minChangesSeen) {
        System.out.println(poller + "; store faults fired: " + FailoverTestSupport.injectedStoreFaults());
        poller.assertReadWell(seed, minReadsWithRows, minChangesSeen, manifestHistory(table()));
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
        survivesFailuresAndEqualsTheModel(
                FailoverTestSupport.seed("upsertsAndDeletesSurviveFailuresAndEqualTheModel", 8_101), 7);
    }

    /** 30,000 changes over 300 keys with three task failures and store faults; the end is the model. */
    private void survivesFailuresAndEqualsTheModel(long seed, int deleteEvery) throws Exception {
        survivesFailuresAndEqualsTheModel(seed, deleteEvery, MIN_POLLS, MIN_CHANGES_SEEN);
    }

    private void survivesFailuresAndEqualsTheModel(long seed, int deleteEvery, int minReadsWithRows, int minChangesSeen)
            throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, deleteEvery);
        long n = 30_000;
        ReadPoller poller = poller(changes, n);
        Map<Long, String> table = runWithFailures(changes, n, seed, RUN_SECONDS, List.of(poller));
        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(FailoverTestSupport.injectedStoreFaults())
                .as("store faults fired, seed %d", seed)
                .isPositive();
        assertThat(table).as("seed %d", seed).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(poller, seed, minReadsWithRows, minChangesSeen);
    }

    /**
     * The same with each subtask's ticks limited to one append a second over its two shards (each
     * shard ticks every 2 s, against 150 ms checkpoints): the barriers' appends make most rows
     * durable, and the restarts still replay exactly what the checkpoints covered.
     */
    @Test
    void sparseTicksBehindTheAppendLimitSurviveFailuresAndEqualTheModel() throws Exception {
        walAppendsPerSecond = 1;
        survivesFailuresAndEqualsTheModel(
                FailoverTestSupport.seed("sparseTicksBehindTheAppendLimitSurviveFailuresAndEqualTheModel", 8_104), 8);
    }

    /**
     * The same with 64 buckets over the two writer subtasks: 32 shards each, more than rows are
     * written to directly, so rows reach the memtables in blocks grouped by bucket. With 64
     * shards the store faults and restarts leave few checkpoints complete, so the committed
     * reader finds rows in few of its reads: 4 or 5 in most runs (once 65), against the 5 the
     * other runs must reach. Here it must read rows at least twice, in two table states.
     */
    @Test
    void rowsWrittenInBlocksForManyShardsSurviveFailuresAndEqualTheModel() throws Exception {
        buckets = 64;
        survivesFailuresAndEqualsTheModel(
                FailoverTestSupport.seed("rowsWrittenInBlocksForManyShardsSurviveFailuresAndEqualTheModel", 8_105),
                9,
                2,
                2);
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
        ReadPoller poller = poller(changes, n);
        FailoverTestSupport.reset(0);
        RestartBeforeFirstCheckpoint.reset(poller);
        long[] holds = {failAt / 4, failAt / 2, failAt * 3 / 4};
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                i -> i, n, new RestartBeforeFirstCheckpoint.HoldWhileResending(failAt, holds), Types.LONG);
        FlatMapFunction<Long, Long> failure =
                new RestartBeforeFirstCheckpoint.FirstAttemptFailsAfterItsRowsAreDurable(table(), changes, failAt);
        Map<Long, String> table = run(
                n,
                List.of(poller),
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
     * job after every completed checkpoint, while three readers poll: walsink's COMMITTED reader, the
     * base table alone (a plain lance-core scan) and LanceDB's client on its defaults (its MemWAL
     * scanner). None sees a key go back, vanish without a later delete in the input or show a value
     * newer than a completed checkpoint covers, and no read fails (see {@link ReadPoller}). The table
     * ends equal to the model, and once everything is merged the base table alone (lance-core and
     * LanceDB) and LanceDB's default read hold exactly the model's rows.
     */
    @Test
    void compactionInsideTheJobSurvivesFailures() throws Exception {
        long seed = FailoverTestSupport.seed("compactionInsideTheJobSurvivesFailures", 8_105);
        ChangeGenerator changes = new ChangeGenerator(300, 7);
        long n = 30_000;
        ReadPoller committed = poller(changes, n);
        ReadPoller baseOnly = ReadPoller.baseOnly(table(), changes, n, 50);
        ReadPoller lanceDb = ReadPoller.lanceDb(table(), changes, n, 100); // a Node process per read
        compaction = true;
        Map<Long, String> table =
                runWithFailures(changes, n, seed, COMPACTION_RUN_SECONDS, List.of(committed, baseOnly, lanceDb));
        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(FailoverTestSupport.injectedStoreFaults())
                .as("store faults fired, seed %d", seed)
                .isPositive();
        assertThat(table).as("seed %d", seed).isEqualTo(changes.model(n));
        assertReaderSawNoViolations(committed, seed);
        assertReaderSawNoViolations(baseOnly, seed, MIN_BASE_READS, MIN_BASE_CHANGES_SEEN);
        assertReaderSawNoViolations(lanceDb, seed, MIN_LANCEDB_READS, MIN_LANCEDB_CHANGES_SEEN);
        assertThat(ReadPoller.lanceDbRows(table(), null))
                .as("LanceDB's default read at the end, seed %d", seed)
                .isEqualTo(changes.model(n));
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
        assertThat(ReadPoller.lanceDbRows(table(), false))
                .as("LanceDB's base-only read once all is merged, seed %d", seed)
                .isEqualTo(changes.model(n));
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
        ReadPoller poller = poller(changes, n);
        Map<Long, String> table = runWithFailures(changes, n, seed, RUN_SECONDS, List.of(poller));
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
