package io.walsink.table.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.read.ReadMode;
import io.walsink.table.scan.HoldingSource;
import io.walsink.table.scan.TableScanRestoreTest;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A continuous read on a MiniCluster of a table the shard engine's writers keep writing fails over
 * once, at a seeded random row (inside the snapshot or inside the changes), after a checkpoint
 * taken there completed. Its output (the job's collect sink, exactly-once with checkpoints) holds
 * every key's changes once and in order and, applied to a map, ends at the writers' model; the
 * restored attempt emitted exactly the rows after the checkpoint, so the source itself repeated
 * nothing.
 */
class ContinuousReadFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int BUCKETS = 4;
    private static final int KEYS = 120;
    private static final int ROUNDS = 6;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // a missing change would leave the collect waiting
    void aReadFailingOverWhileTheTableIsWrittenEmitsEveryChangeOnceInOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ContinuousReadFailoverTest seed " + seed);
        Random random = new Random(seed);
        String uri = dir.resolve("t").toString();
        LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(uri, allocator)) {
            ChangeModel changes = new ChangeModel(writers, random, KEYS);
            changes.writeAndPublish(2);
            changes.snapshotIsExpected();
            int holdAt = 1 + random.nextInt(changes.expectedChanges() + ROUNDS * changes.changesPerRound() - 1);
            HoldingSource.reset(() -> {});

            StreamExecutionEnvironment env = HoldingSource.environment();
            env.setParallelism(1); // one reader, all four bucket splits: the hold counts its rows exactly
            ChangeStream stream = new ChangeStream(
                    TableScanRestoreTest.scan(uri, ReadMode.COMMITTED),
                    StartupMode.INITIAL,
                    Duration.ofMillis(50),
                    true);
            List<String> emitted = new ArrayList<>();
            try (CloseableIterator<String> rows = env.fromSource(
                            new HoldingSource<>(new WalTableChangeSource(stream), holdAt),
                            WatermarkStrategy.noWatermarks(),
                            "changes",
                            InternalTypeInfo.ofFields(new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)))
                    .map(row -> ChangeHarness.changes(List.of(row)).get(0))
                    .executeAndCollect()) {
                for (int round = 0; round <= ROUNDS; round++) {
                    if (round > 0) {
                        changes.writeAndPublish(1); // while the job reads, between its polls
                    }
                    while (emitted.size() < changes.expectedChanges()) {
                        emitted.add(rows.next()); // blocks until the read emits the next change
                    }
                }
            }
            assertThat(HoldingSource.FAILED)
                    .as("the read failed once, seed %s", seed)
                    .isTrue();
            assertThat(HoldingSource.EMITTED_BEFORE_FAILURE.get()).isEqualTo(holdAt);
            changes.assertEmitted(emitted);
            assertThat(HoldingSource.EMITTED_BEFORE_FAILURE.get() + HoldingSource.EMITTED_AFTER_FAILURE.get())
                    .as("the restored attempt resumed where the checkpoint was, seed %s", seed)
                    .isEqualTo(emitted.size());
        }
    }
}
