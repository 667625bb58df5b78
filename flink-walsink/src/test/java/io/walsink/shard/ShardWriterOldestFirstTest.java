package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.appendOnce;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalEntry;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Append order is recency order: when a frozen memtable and the active one both owe rows, the
 * frozen one's tail (older rows) must reach the WAL first, or replay lets an old value win.
 */
class ShardWriterOldestFirstTest {
    @TempDir
    Path dir;

    @Test
    void aFrozenTailIsAppendedBeforeTheActiveMemtableSoReplayKeepsTheNewestValue() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "durable");
            appendAllPending(writer);
            f.put(writer, 7, "v1"); // generation 1, still pending when it freezes
            writer.freezeActive();
            f.put(writer, 7, "v2"); // generation 2, newer
            assertThat(writer.frozenMemtables()).isEqualTo(1);
            appendAllPending(writer);
            writer.close(); // crash: only the WAL is left

            ShardWriter reopened = f.open();
            assertThat(f.read(ReadMode.LATEST)).containsEntry(7L, "v2").isEqualTo(f.model);
            // the replayed memtables agree with the reader once they are flushed and published
            flushAndPublishAll(reopened);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
            reopened.close();
        }
    }

    @Test
    void entryGenerationsNeverDecreaseWithPosition() {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
                ShardWriter writer = f.open()) {
            for (int round = 0; round < 4; round++) {
                f.put(writer, round, "appended before the freeze");
                appendOnce(writer);
                f.put(writer, 100 + round, "pending at the freeze");
                writer.freezeActive();
                f.put(writer, 200 + round, "in the next generation");
            }
            appendAllPending(writer);

            List<Long> generations = new ArrayList<>();
            for (long position : f.walPositions()) {
                try (WalEntry entry = f.wal().read(position).orElseThrow()) {
                    generations.add(entry.generation().orElseThrow());
                }
            }
            assertThat(generations).hasSizeGreaterThan(4).isSorted();
            assertThat(generations.get(generations.size() - 1)).isEqualTo(5);
        }
    }
}
