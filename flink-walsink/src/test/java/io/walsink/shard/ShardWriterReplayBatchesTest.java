package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.memtable.LongKeyIndexTest;
import io.walsink.shard.memtable.Memtable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replay takes the decoded WAL batches over as sealed memtable batches: a reopened shard holds
 * exactly the memtables (generations, batches, rows, index) the crashed writer had made durable.
 */
class ShardWriterReplayBatchesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(WalSchemaProfile.class)
    void aReopenedShardHoldsTheBatchesTheCrashedWriterMadeDurable(WalSchemaProfile profile) {
        long seed = LongKeyIndexTest.seed("aReopenedShardHoldsTheBatchesTheCrashedWriterMadeDurable " + profile);
        Random random = new Random(seed);
        ShardWriterConfig config = ShardWriterConfig.builder()
                .batchMaxRows(100)
                .memtableMaxRows(700)
                .build();
        try (ShardFixture f = new ShardFixture(dir, profile, config)) {
            ShardWriter crashed = f.open();
            for (int b = 0; b < 12; b++) {
                int count = 1 + random.nextInt(300);
                long[] ids = new long[count];
                String[] names = new String[count];
                for (int r = 0; r < count; r++) {
                    ids[r] = random.nextInt(400);
                    names[r] = random.nextInt(4) == 0 ? null : "v" + "y".repeat(random.nextInt(30));
                }
                try (VectorSchemaRoot in = f.rows(ids, names)) {
                    boolean delete = profile == WalSchemaProfile.SPEC && random.nextInt(5) == 0;
                    if (delete) {
                        crashed.delete(in);
                    } else {
                        crashed.put(in);
                    }
                }
                appendAllPending(crashed);
            }
            List<List<String>> durable = describeAll(crashed);
            assertThat(crashed.frozenMemtables())
                    .as("seed %d: memtables froze", seed)
                    .isPositive();
            crashed.close();

            try (ShardWriter reopened = f.open()) {
                assertThat(describeAll(reopened)).as("seed %d", seed).isEqualTo(durable);
                assertThat(reopened.hasPendingRows()).isFalse();
                assertThat(reopened.stats().replayedRows())
                        .isEqualTo(
                                crashed.stats().rowsWritten() + crashed.stats().deletesWritten());
            }
        }
    }

    private static List<List<String>> describeAll(ShardWriter writer) {
        List<List<String>> all = new ArrayList<>();
        for (Memtable m : writer.memtables().all()) {
            if (m.rows() > 0) {
                all.add(ShardWriterBulkPutTest.describe(m));
            }
        }
        return all;
    }
}
