package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The time a shard keeps for its base version is taken before the version is read, not when the
 * writer takes it in after its manifest write: {@link BaseVersionRefresh} and the base-table
 * cleanup count the version as the latest from that time on (docs/architecture.md, "Keeping what
 * restores need"), and a later time makes the version look younger than it is by the manifest
 * write and the wait for the task thread. Both the claim and a publication read the merge progress,
 * then write a manifest, so the time kept must come before that write.
 */
class BaseVersionReadTimeTest {
    @TempDir
    Path dir;

    @Test
    void theBaseVersionsReadTimeComesBeforeTheManifestWriteThatFollowsTheRead() throws Exception {
        try (ShardFixture f = new ShardFixture(
                dir, WalSchemaProfile.SPEC, ShardWriterConfig.builder().build())) {
            ManifestWrites writes = new ManifestWrites(f.store);
            ShardWriter writer = f.open(f.contextOver(writes, f.context.config()));
            try {
                assertThat(writes.count.get()).as("the claim wrote a manifest").isPositive();
                assertThat(writer.checkpoint().baseVersionReadAtNanos())
                        .as("the claim's base version was read before its manifest write")
                        .isLessThan(writes.lastNanos.get());

                int claimed = writes.count.get();
                f.put(writer, 1, "a");
                SyncShardDriver.flushAndPublishAll(writer);
                assertThat(writes.count.get())
                        .as("the publication wrote a manifest")
                        .isGreaterThan(claimed);
                assertThat(writer.checkpoint().baseVersionReadAtNanos())
                        .as("the publication's base version was read before its manifest write")
                        .isLessThan(writes.lastNanos.get());
            } finally {
                writer.close();
            }
        }
    }

    /** Notes when the last shard manifest write began (System.nanoTime). */
    private static final class ManifestWrites extends ForwardingObjectStore {
        final AtomicInteger count = new AtomicInteger();
        final AtomicLong lastNanos = new AtomicLong();

        ManifestWrites(ObjectStore delegate) {
            super(delegate);
        }

        private void note(String key) {
            if (key.contains("/manifest/")) {
                lastNanos.set(System.nanoTime());
                count.incrementAndGet();
            }
        }

        @Override
        public void putIfAbsent(String key, byte[] data) {
            note(key);
            super.putIfAbsent(key, data);
        }

        @Override
        public void put(String key, byte[] data) {
            note(key);
            super.put(key, data);
        }
    }
}
