package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestInvariants;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.ObjectMeta;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink checkpoint path: {@link ShardOpener#restore} opens a shard as of a descriptor, and
 * rows written after it (orphans of the failed attempt, which the source sends again) must never
 * come back, neither in this writer nor in any later plain open.
 */
class ShardWriterRestoreTest {
    @TempDir
    Path dir;

    private ShardFixture fixture() {
        ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, ShardWriterConfig.defaults());
        manifests = new ManifestStore(f.store.delegate(), ShardFixture.SHARD);
        return f;
    }

    /** Restores must keep the manifest history valid: epochs, generations and replay_after never go back. */
    @AfterEach
    void manifestHistoryStaysValid() {
        if (manifests != null) {
            assertThat(ManifestInvariants.check(manifests)).isEmpty();
        }
    }

    private ManifestStore manifests;

    private ShardManifest latestManifest(ShardFixture f) {
        return new ManifestStore(f.store.delegate(), ShardFixture.SHARD)
                .readLatest()
                .orElseThrow();
    }

    @Test
    void orphansWrittenAfterTheDescriptorAreNeverReplayed() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "a1");
            f.put(writer, 2, "a2");
            appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            Map<Long, String> atCheckpoint = f.modelNow();
            f.put(writer, 1, "orphan");
            f.put(writer, 3, "orphan");
            f.delete(writer, 2);
            appendAllPending(writer);
            writer.close();

            ShardWriter restored = f.restore(checkpoint);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atCheckpoint);
            f.model.clear();
            f.model.putAll(atCheckpoint);
            f.put(restored, 4, "after restore");
            f.put(restored, 1, "after restore");
            appendAllPending(restored);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model).doesNotContainKey(3L);
            restored.close();

            f.reopenAndExpect(f.model);
        }
    }

    @Test
    void withoutOrphansNothingIsRewritten() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "a1");
            appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            writer.close();
            int entries = f.walPositions().size();
            long version = latestManifest(f).version();

            ShardWriter restored = f.restore(checkpoint);
            assertThat(f.walPositions()).as("the sentinel only").hasSize(entries + 1);
            assertThat(latestManifest(f).version()).as("the claim only").isEqualTo(version + 1);
            assertThat(restored.hasPendingRows()).isFalse();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
            restored.close();
        }
    }

    @Test
    void sstablesWrittenButUnpublishedAtTheCheckpointAreRepublished() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "gen1");
            f.put(writer, 2, "gen1");
            writer.freezeActive();
            appendAllPending(writer);
            flushFrozen(writer);
            Map<Long, String> inSsTable = f.modelNow();
            f.put(writer, 2, "gen2");
            appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            assertThat(checkpoint.unpublished()).hasSize(1);
            String path = checkpoint.unpublished().get(0).path();
            writer.close(); // crashed before the checkpoint completed: nothing published

            ShardWriter restored = f.restore(checkpoint);
            assertThat(latestManifest(f).sstables()).extracting(SsTable::path).containsExactly(path);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(inSsTable);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
            assertThat(restored.unpublished()).isEmpty();
            flushAndPublishAll(restored);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
            restored.close();
        }
    }

    @Test
    void unpublishedSsTablesAreRepublishedAlsoWhenOrphansAreRolledBack() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "gen1");
            writer.freezeActive();
            appendAllPending(writer);
            flushFrozen(writer);
            f.put(writer, 2, "gen2");
            appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            Map<Long, String> atCheckpoint = f.modelNow();
            f.put(writer, 1, "orphan");
            writer.freezeActive();
            appendAllPending(writer);
            flushFrozen(writer);
            publishAll(writer); // the failed attempt even published its SSTables
            writer.close();

            ShardWriter restored = f.restore(checkpoint);
            assertThat(latestManifest(f).sstables())
                    .extracting(SsTable::path)
                    .containsExactly(checkpoint.unpublished().get(0).path());
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(Map.of(1L, "gen1"));
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atCheckpoint);
            restored.close();
            f.open().close();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atCheckpoint);
        }
    }

    @Test
    void anOlderDescriptorRollsBackSsTablesPublishedAfterIt() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "gen1");
            f.put(writer, 2, "gen1");
            flushAndPublishAll(writer);
            f.put(writer, 3, "durable at the checkpoint");
            appendAllPending(writer);
            ShardDescriptor older = writer.snapshot();
            Map<Long, String> atOlder = f.modelNow();
            f.put(writer, 1, "later");
            f.delete(writer, 2);
            flushAndPublishAll(writer);
            f.put(writer, 5, "later still");
            appendAllPending(writer);
            writer.close();

            ShardWriter restored = f.restore(older);
            assertThat(latestManifest(f).sstables())
                    .extracting(SsTable::generation)
                    .containsExactly(1L);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(Map.of(1L, "gen1", 2L, "gen1"));
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atOlder);
            f.model.clear();
            f.model.putAll(atOlder);
            f.put(restored, 6, "after restore");
            flushAndPublishAll(restored);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
            assertThat(latestManifest(f).sstables())
                    .extracting(SsTable::generation)
                    .as("the rolled-back generation 2 names no other SSTable")
                    .hasSize(2)
                    .doesNotContain(2L);
            restored.close();
            f.open().close();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(f.model);
        }
    }

    /**
     * A job started from an old savepoint (S1) rolls the shard back; restoring the
     * original job's latest checkpoint (S2) afterwards must bring back S2's published SSTables
     * (G2 is no longer in the current manifest) and S2's WAL range, exactly S2's state.
     */
    @Test
    void rollingBackThenForwardKeepsTheSsTablesTheLaterCheckpointPublished() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "g1");
            f.put(writer, 2, "g1");
            flushAndPublishAll(writer); // G1
            f.put(writer, 3, "wal at S1");
            appendAllPending(writer);
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, String> atS1 = f.modelNow();

            f.put(writer, 1, "g2");
            f.delete(writer, 2);
            f.put(writer, 4, "g2");
            flushAndPublishAll(writer); // G2
            Map<Long, String> publishedAtS2 = f.modelNow();
            f.put(writer, 4, "wal at S2");
            f.put(writer, 5, "wal at S2");
            appendAllPending(writer);
            ShardDescriptor s2 = writer.snapshot();
            Map<Long, String> atS2 = f.modelNow();
            List<String> publishedPaths =
                    latestManifest(f).sstables().stream().map(SsTable::path).toList();
            assertThat(publishedPaths).hasSize(2);
            writer.close();

            // A job from the old savepoint: rolls back to S1, then writes and publishes its own rows.
            ShardWriter fromS1 = f.restore(s1);
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atS1);
            f.put(fromS1, 1, "job from S1");
            f.put(fromS1, 6, "job from S1");
            flushAndPublishAll(fromS1);
            f.put(fromS1, 7, "job from S1, unpublished");
            appendAllPending(fromS1);
            fromS1.close();

            // Back to the original job's latest checkpoint.
            ShardWriter fromS2 = f.restore(s2);
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("published at S2: G1 + G2")
                    .isEqualTo(publishedAtS2);
            assertThat(f.read(ReadMode.LATEST))
                    .as("S2: G1 + G2 + S2's WAL range")
                    .isEqualTo(atS2);
            assertThat(latestManifest(f).sstables())
                    .extracting(SsTable::path)
                    .containsExactlyElementsOf(publishedPaths);
            fromS2.close();

            // A later plain open (ours or Lance's) replays S2's state too, and can publish it all.
            f.reopenAndExpect(atS2);
        }
    }

    @Test
    void aMissingPinnedSsTableFailsTheRestoreNamingShardAndPath() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "g1");
            flushAndPublishAll(writer);
            f.put(writer, 2, "g2");
            flushAndPublishAll(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            writer.close();
            String lost = latestManifest(f).sstables().get(1).path();
            String folder = TableLayout.shardFolder(ShardFixture.SHARD) + lost + "/";
            for (ObjectMeta object : f.store.delegate().listAll(folder)) {
                f.store.delegate().delete(object.key());
            }
            long epochBefore = latestManifest(f).writerEpoch();

            assertThatThrownBy(() -> f.restore(checkpoint))
                    .hasMessageContaining(ShardFixture.SHARD.toString())
                    .hasMessageContaining(lost)
                    .hasMessageContaining("missing");
            assertThat(latestManifest(f).writerEpoch())
                    .as("failed before claiming the shard")
                    .isEqualTo(epochBefore);
        }
    }

    @Test
    void aPinnedManifestVersionThatIsMissingFailsTheRestoreBeforeTheClaim() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "g1");
            flushAndPublishAll(writer);
            ShardDescriptor d = writer.snapshot();
            writer.close();
            ShardDescriptor pinsAbsentVersion = new ShardDescriptor(
                    d.shardId(),
                    d.bucket(),
                    d.epoch(),
                    d.replayAfter(),
                    d.durablePosition(),
                    d.currentGeneration(),
                    d.publishedGeneration(),
                    999,
                    d.baseVersion(),
                    d.unpublished());
            long version = latestManifest(f).version();

            assertThatThrownBy(() -> f.restore(pinsAbsentVersion))
                    .hasMessageContaining("manifest version 999 of shard " + ShardFixture.SHARD)
                    .hasMessageContaining("missing");
            assertThat(latestManifest(f).version()).as("nothing claimed").isEqualTo(version);
        }
    }

    /** Descriptors of the previous release (serializer version 1) pin nothing; they restore as that release did. */
    @Test
    void anUnpinnedDescriptorStillRestores() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "gen1");
            f.put(writer, 2, "gen1");
            flushAndPublishAll(writer);
            f.put(writer, 3, "durable at the checkpoint");
            appendAllPending(writer);
            ShardDescriptor d = writer.snapshot();
            ShardDescriptor unpinned = new ShardDescriptor(
                    d.shardId(),
                    d.bucket(),
                    d.epoch(),
                    d.replayAfter(),
                    d.durablePosition(),
                    d.currentGeneration(),
                    d.publishedGeneration(),
                    0,
                    d.baseVersion(),
                    d.unpublished());
            Map<Long, String> atCheckpoint = f.modelNow();
            f.put(writer, 1, "later");
            flushAndPublishAll(writer);
            f.put(writer, 4, "orphan");
            appendAllPending(writer);
            writer.close();

            ShardWriter restored = f.restore(unpinned);
            assertThat(latestManifest(f).sstables())
                    .extracting(SsTable::generation)
                    .containsExactly(1L);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(Map.of(1L, "gen1", 2L, "gen1"));
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(atCheckpoint);
            restored.close();
        }
    }

    @Test
    void theEmptyDescriptorRollsTheShardBackToEmpty() {
        try (ShardFixture f = fixture()) {
            ShardWriter writer = f.open();
            f.put(writer, 1, "published");
            flushAndPublishAll(writer);
            f.put(writer, 2, "durable");
            appendAllPending(writer);
            writer.close();

            ShardWriter restored = f.restore(ShardDescriptor.empty(ShardFixture.SHARD, 0));
            assertThat(latestManifest(f).sstables()).isEmpty();
            assertThat(f.read(ReadMode.LATEST)).isEmpty();
            f.model.clear();
            f.put(restored, 7, "fresh");
            appendAllPending(restored);
            restored.close();
            f.open().close();
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(new TreeMap<>(Map.of(7L, "fresh")));
        }
    }
}
