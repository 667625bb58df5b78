package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.appendOnce;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A crash ({@link ShardWriter#close()} drops memory without I/O) at each interesting point of a
 * memtable's life, then a plain reopen: the table equals the model of everything that reached
 * the WAL (last write wins, deletes honoured), and replayed rows are never appended again.
 */
class ShardWriterCrashReplayTest {
    @TempDir
    Path dir;

    enum CrashPoint {
        /** Rows put but never appended: they were never acknowledged, losing them is correct. */
        AFTER_PUT,
        AFTER_APPEND,
        /** Frozen memtable whose tail is not in the WAL yet, newer rows in the active one. */
        FROZEN_TAIL_PENDING,
        /** Frozen tail appended (and only it), SSTable not written. */
        FROZEN_TAIL_APPENDED,
        /** SSTable written, not published; newer rows durable in the next generation. */
        SSTABLE_WRITTEN,
        PUBLISHED
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void reopeningReplaysExactlyWhatWasDurable(CrashPoint point) {
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults())) {
            ShardWriter writer = f.open();
            for (long id = 1; id <= 5; id++) {
                f.put(writer, id, "a" + id);
            }
            appendAllPending(writer);
            Map<Long, String> durable = f.modelNow();

            f.put(writer, 1, "b1");
            f.delete(writer, 2);
            f.put(writer, 6, "b6");
            switch (point) {
                case AFTER_PUT -> {}
                case AFTER_APPEND -> {
                    appendAllPending(writer);
                    durable = f.modelNow();
                }
                case FROZEN_TAIL_PENDING -> {
                    writer.freezeActive();
                    f.put(writer, 3, "c3");
                }
                case FROZEN_TAIL_APPENDED -> {
                    writer.freezeActive();
                    durable = f.modelNow();
                    f.put(writer, 3, "c3");
                    assertThat(appendOnce(writer)).isTrue();
                    assertThat(writer.pendingRows())
                            .as("only the frozen tail was appended")
                            .isEqualTo(1);
                }
                case SSTABLE_WRITTEN, PUBLISHED -> {
                    writer.freezeActive();
                    appendAllPending(writer);
                    flushFrozen(writer);
                    f.put(writer, 3, "c3");
                    f.delete(writer, 4);
                    appendAllPending(writer);
                    if (point == CrashPoint.PUBLISHED) {
                        publishAll(writer);
                    }
                    durable = f.modelNow();
                }
            }
            int entriesBeforeCrash = f.walPositions().size();
            writer.close();

            ShardWriter reopened = f.open();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(durable);
            assertThat(f.walPositions()).as("only the sentinel is new").hasSize(entriesBeforeCrash + 1);
            assertThat(reopened.hasPendingRows()).isFalse();
            appendAllPending(reopened);
            assertThat(f.walPositions())
                    .as("replayed rows are not appended again")
                    .hasSize(entriesBeforeCrash + 1);

            // the replayed memtables hold the same state: flushed and published, it is all there
            flushAndPublishAll(reopened);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(durable);
            reopened.close();
            ShardWriter third = f.open();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(durable);
            assertThat(third.stats().replayedRows())
                    .as("everything is in published SSTables")
                    .isZero();
            third.close();
        }
    }
}
