package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upserts and deletes with failures injected at random points (a failing map, WAL and manifest
 * writes that fail or lose their acknowledgement), checkpoints every 150 ms and restarts: the
 * final table equals the model, and no reader ever sees a key go back to an older value.
 */
class WalSinkFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @TempDir Path dir;

    private Map<Long, String> runWithFailures(ChangeGenerator changes, long n, List<String> regressions) throws Exception {
        return run(changes, n, regressions, 6, new FailoverTestSupport.FailOnceAt(n / 5, n / 2, n * 4 / 5), 150);
    }

    private Map<Long, String> run(ChangeGenerator changes, long n, List<String> regressions, long storeFaults,
            org.apache.flink.api.common.functions.MapFunction<Long, Long> failures, long checkpointInterval)
            throws Exception {
        Path table = dir.resolve("table");
        FailoverTestSupport.reset(storeFaults);
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointInterval);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        WalSink<org.apache.flink.table.data.RowData> sink = WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(20))
                .memtableMaxRows(2_000)
                .storeWrapper(FailoverTestSupport.flaky(0.02))
                .build();
        env.fromSequence(0, n - 1).setParallelism(1)
                .map(failures).setParallelism(1)
                .map(changes::change).returns(WalSinkMiniClusterTest.rowDataType()).setParallelism(1)
                .sinkTo(sink).uid("walsink-failover");

        AtomicBoolean running = new AtomicBoolean(true);
        Thread poller = new Thread(() -> pollForRegressions(table, running, regressions), "recency-poller");
        poller.start();
        try {
            env.execute("walsink failover");
        } finally {
            running.set(false);
            poller.join();
        }
        return read(table, ReadMode.COMMITTED);
    }

    /** Values are "v" + change number: a key showing a smaller number after a larger one went back. */
    private static void pollForRegressions(Path table, AtomicBoolean running, List<String> regressions) {
        Map<Long, Long> newest = new HashMap<>();
        while (running.get()) {
            try {
                for (Map.Entry<Long, String> row : read(table, ReadMode.COMMITTED).entrySet()) {
                    long seen = Long.parseLong(row.getValue().substring(1));
                    Long before = newest.put(row.getKey(), seen);
                    if (before != null && before > seen) {
                        regressions.add("key " + row.getKey() + " went from v" + before + " back to v" + seen);
                        if (regressions.size() == 1) {
                            regressions.add(manifestHistory(table));
                        }
                    }
                }
                Thread.sleep(30);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException notYetThere) {
                // the table is created by the job; until then there is nothing to read
            }
        }
    }

    private static String manifestHistory(Path table) {
        StringBuilder b = new StringBuilder("manifests:");
        io.walsink.storage.LocalObjectStore store = new io.walsink.storage.LocalObjectStore(table);
        for (java.util.UUID shard : HarnessSupport.shards(table)) {
            io.walsink.format.manifest.ManifestStore m = new io.walsink.format.manifest.ManifestStore(store, shard);
            for (long v : m.listVersions()) {
                var x = m.read(v);
                b.append("\n ").append(shard.toString(), 0, 8).append(" v").append(v).append(" e").append(x.writerEpoch())
                        .append(" ra").append(x.replayAfterWalEntryPosition()).append(" cg").append(x.currentGeneration())
                        .append(" ").append(x.sstables().stream().map(t -> t.generation() + ":" + t.path()).toList());
            }
        }
        return b.toString();
    }

    @Test
    void upsertsAndDeletesSurviveFailuresAndEqualTheModel() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, 7);
        long n = 30_000;
        List<String> regressions = new CopyOnWriteArrayList<>();
        Map<Long, String> table = runWithFailures(changes, n, regressions);
        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(table).isEqualTo(changes.model(n));
        assertThat(regressions).isEmpty();
    }

    @Test
    void aRestartBeforeTheFirstCheckpointRollsBackTheFailedAttemptsRows() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, 0);
        long n = 40_000;
        List<String> regressions = new CopyOnWriteArrayList<>();
        FailoverTestSupport.FIRST_ATTEMPT.set(true);
        Map<Long, String> table = run(changes, n, regressions, 0, new FailoverTestSupport.FailFirstAttemptUncheckpointed(n / 2), 200);
        assertThat(FailoverTestSupport.FIRST_ATTEMPT).isFalse();
        assertThat(table).isEqualTo(changes.model(n));
        assertThat(regressions).isEmpty();
    }

    @Test
    void upsertOnlyRunIsReadTheSameByLanceCore() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(400, 0);
        long n = 20_000;
        List<String> regressions = new CopyOnWriteArrayList<>();
        Map<Long, String> table = runWithFailures(changes, n, regressions);
        assertThat(table).isEqualTo(changes.model(n));
        assertThat(regressions).isEmpty();
        Path path = dir.resolve("table");
        Map<Long, String> lance = new HashMap<>();
        LocalObjectStore store = new LocalObjectStore(path);
        try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
            LanceOracle.scan(allocator, path.toString(), Map.of(),
                            LanceOracle.snapshots(store, HarnessSupport.shards(path)), List.of("id", "name"))
                    .forEach(r -> lance.put((Long) r.get("id"), String.valueOf(r.get("name"))));
        }
        assertThat(lance).isEqualTo(changes.model(n));
    }
}
