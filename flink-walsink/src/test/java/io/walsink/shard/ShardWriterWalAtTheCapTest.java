package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WAL entry is encoded into the writer's Arrow memory; at the memory's cap, where the entry does
 * not fit beside the memtables, it goes through the heap instead, and the append still lands.
 */
class ShardWriterWalAtTheCapTest {
    @TempDir
    Path dir;

    @Test
    void anEntryThatDoesNotFitUnderTheCapIsAppendedThroughTheHeap() {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .batchMaxRows(512)
                .memtableMaxBytes(64L << 20)
                .maxUnflushedBytes(64L << 20)
                .build();
        try (RootAllocator capped = new RootAllocator();
                ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, config)) {
            ShardWriter writer = f.open(f.contextOver(f.store, config, capped));
            for (long id = 0; id < 4_000; id++) {
                f.put(writer, id, "name-" + id);
            }
            capped.setLimit(capped.getAllocatedMemory() + (64 << 10));
            long pending = writer.unflushedBytes();
            assertThatThrownBy(() -> capped.buffer(pending).close())
                    .as("an entry of the pending rows does not fit under the cap")
                    .isInstanceOf(OutOfMemoryException.class);

            SyncShardDriver.appendAllPending(writer);

            assertThat(writer.stats().walAppends()).isOne();
            assertThat(writer.durablePosition()).isPositive();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
            writer.close();
        }
    }
}
