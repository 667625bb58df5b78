package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.memtable.LongKeyIndexTest;
import java.nio.file.Path;
import java.util.Random;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard whose WAL holds more than the unflushed budget replays within it: frozen memtables are
 * written as SSTables while replaying (published later, like any others), not all held at once.
 */
class ShardWriterReplayBudgetTest {
    @TempDir
    Path dir;

    @Test
    void aLongWalReplaysWithinTheUnflushedBudget() {
        long seed = LongKeyIndexTest.seed("aLongWalReplaysWithinTheUnflushedBudget");
        Random random = new Random(seed);
        ShardWriterConfig config = ShardWriterConfig.builder()
                .batchMaxRows(50)
                .memtableMaxRows(200)
                .memtableMaxBytes(64 << 10)
                .maxUnflushedBytes(64 << 10)
                .walMaxBufferBytes(64 << 10)
                .build();
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, config)) {
            ShardWriter crashed = f.open();
            for (int b = 0; b < 40; b++) {
                long[] ids = new long[100];
                String[] names = new String[100];
                for (int r = 0; r < ids.length; r++) {
                    ids[r] = random.nextInt(3000);
                    names[r] = "v" + random.nextInt();
                }
                try (VectorSchemaRoot in = f.rows(ids, names)) {
                    crashed.put(in);
                }
                for (int r = 0; r < ids.length; r++) {
                    f.model.put(ids[r], names[r]);
                }
                appendAllPending(crashed);
            }
            long heldAtCrash = crashed.unflushedBytes();
            assertThat(heldAtCrash)
                    .as("seed %d: the crashed writer held more than the budget", seed)
                    .isGreaterThan(config.maxUnflushedBytes() * 3);
            crashed.close();

            try (ShardWriter reopened = f.open()) {
                assertThat(reopened.stats().replayFlushes())
                        .as("SSTables written while replaying")
                        .isPositive();
                assertThat(reopened.unflushedBytes())
                        .as("held after the replay")
                        .isLessThanOrEqualTo(config.maxUnflushedBytes() + config.memtableMaxBytes());
                assertThat(reopened.manifest().sstables())
                        .as("nothing is published by the replay")
                        .isEmpty();
                flushAndPublishAll(reopened);
            }
            assertThat(f.read(ReadMode.COMMITTED)).as("seed %d", seed).isEqualTo(f.modelNow());
        }
    }
}
