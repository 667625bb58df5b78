package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code overBudget()} is the owner's signal to stop feeding rows until SSTable flushes catch up. */
class ShardWriterBackpressureTest {
    private static final long MEMTABLE_BYTES = 32 << 10;
    private static final long BUDGET = 4 * MEMTABLE_BYTES;

    @TempDir
    Path dir;

    @Test
    void overBudgetWhileUnflushedBytesExceedTheLimitAndNotAfterTheFlush() {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .memtableMaxBytes(MEMTABLE_BYTES)
                .walMaxBufferBytes(MEMTABLE_BYTES)
                .maxUnflushedBytes(BUDGET)
                .build();
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, config);
                ShardWriter writer = f.open()) {
            assertThat(writer.overBudget()).isFalse();
            long id = 0;
            while (!writer.overBudget()) {
                assertThat(writer.unflushedBytes()).isLessThanOrEqualTo(BUDGET);
                f.put(writer, id++, "row with some payload " + id);
                assertThat(id).as("the budget must be reached").isLessThan(1_000_000);
            }
            assertThat(writer.unflushedBytes()).isGreaterThan(BUDGET);
            assertThat(writer.frozenMemtables())
                    .as("full memtables froze on the way")
                    .isPositive();

            appendAllPending(writer);
            assertThat(writer.overBudget()).as("appending alone frees nothing").isTrue();
            flushFrozen(writer);
            assertThat(writer.frozenMemtables()).isZero();
            assertThat(writer.overBudget()).isFalse();
            assertThat(writer.unflushedBytes()).isLessThanOrEqualTo(BUDGET);
        }
    }
}
