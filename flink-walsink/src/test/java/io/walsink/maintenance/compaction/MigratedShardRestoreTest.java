package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.TableLayout;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.migration.ShardIdMigration;
import io.walsink.recovery.CommitHook;
import io.walsink.shard.ShardWriter;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.StorageException;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints of an earlier release restored after {@code migrate-shard-ids}: whatever the base
 * table merged of the old shard, and whatever a compactor left half done, counts for the new id as
 * it did for the old, so a restore ends exactly as its checkpoint.
 */
class MigratedShardRestoreTest {
    private static final int BUCKET = 0;

    @TempDir
    Path dir;

    /** Generations merged after the checkpoint, under the old id, are rolled back under the new one. */
    @Test
    void aCheckpointOlderThanWhatWasMergedBeforeTheMigrationIsReset() throws Exception {
        long seed = System.nanoTime();
        System.out.println("MigratedShardRestoreTest merged seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.openAs(legacy(f), BUCKET);
            CompactionFixture.Checkpointed s1 = f.publishedRound(writer, BUCKET, "g1");
            f.publishedRound(writer, BUCKET, "g2");
            writer.close();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);

            migrate(f);

            f.modelAt(s1);
            f.assertRestoredTo(f.restore(s1.state().withShardId(ShardIds.bucket(BUCKET))), s1.model(), seed);
            // LanceDB reads the migrated table on its defaults: both ids are marked in the MemWAL index.
            LanceDb.Result all = LanceDb.read(
                            f.tablePath, List.of(LanceDb.Query.of("all", null, CompactionFixture.COLUMNS)))
                    .get("all");
            assertThat(all.failed()).as("LanceDB read: %s", all.error()).isFalse();
            assertThat(all.rows().stream().map(r -> Long.parseLong(r.get(0))).sorted())
                    .as("LanceDB's default read, seed %s", seed)
                    .containsExactlyElementsOf(s1.model().keySet());
        }
    }

    /** A merge that committed its deletes and died before its mark, under the old id, is rolled back under the new one. */
    @Test
    void aHalfMergeBeforeTheMigrationIsRolledBackAfterIt() {
        long seed = System.nanoTime();
        System.out.println("MigratedShardRestoreTest half merge seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            UUID legacy = legacy(f);
            ShardWriter writer = f.openAs(legacy, BUCKET);
            CompactionFixture.Checkpointed s1 = f.publishedRound(writer, BUCKET, "g1");
            // Generation 2 deletes every key of generation 1 and writes one more: its merge commits deletes apart from
            // its mark.
            for (long id : List.copyOf(s1.model().keySet())) {
                f.delete(writer, id);
            }
            f.put(writer, 1_000_000L, "g2", 1);
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            boolean[] crashed = {false};
            CommitHook crash = (shard, generation, step) -> {
                if (generation == 2 && step == CommitHook.Step.MERGE_AND_MARK) {
                    crashed[0] = true;
                    throw new CompactionFixture.Crash();
                }
            };
            assertThatThrownBy(() -> f.compactor(CompactorOptions.defaults().withMaxGenerationsPerCommit(1), crash)
                            .run())
                    .isInstanceOf(CompactionFixture.Crash.class);
            assertThat(crashed[0])
                    .as("the compactor died after generation 2's deletes")
                    .isTrue();
            assertThat(f.merged().get(legacy)).as("generation 2 is not marked").isEqualTo(1);
            assertThat(f.baseRows()).as("its deletes are committed").isEmpty();

            migrate(f);

            f.modelAt(s1);
            f.assertRestoredTo(f.restore(s1.state().withShardId(ShardIds.bucket(BUCKET))), s1.model(), seed);
        }
    }

    /** A run that stopped after copying some of the shard's objects, before its manifests, continues when run again. */
    @Test
    void aMigrationInterruptedBeforeItsManifestsContinuesWhenRunAgain() {
        long seed = System.nanoTime();
        System.out.println("MigratedShardRestoreTest interrupted seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.openAs(legacy(f), BUCKET);
            CompactionFixture.Checkpointed s1 = f.publishedRound(writer, BUCKET, "g1");
            writer.close();
            String newManifests = TableLayout.manifestFolder(ShardIds.bucket(BUCKET));
            AtomicInteger failed = new AtomicInteger();
            ForwardingObjectStore failing = new ForwardingObjectStore(f.store) {
                @Override
                public void putIfAbsent(String key, byte[] data) {
                    if (key.startsWith(newManifests) && failed.getAndIncrement() == 0) {
                        throw new StorageException(key, "simulated failure", false);
                    }
                    super.putIfAbsent(key, data);
                }
            };
            assertThatThrownBy(() -> new ShardIdMigration(new TableLocation(failing, f.uri, Map.of()), f.allocator)
                            .run(line -> {}))
                    .hasMessageContaining("simulated failure");
            assertThat(f.store.listAll(TableLayout.shardFolder(ShardIds.bucket(BUCKET))))
                    .as("the interrupted run copied objects of the shard")
                    .isNotEmpty();

            migrate(f);

            f.modelAt(s1);
            f.assertRestoredTo(f.restore(s1.state().withShardId(ShardIds.bucket(BUCKET))), s1.model(), seed);
        }
    }

    private static UUID legacy(CompactionFixture f) {
        return ShardIds.legacyBucket(f.table.sharding().specId(), BUCKET);
    }

    private static void migrate(CompactionFixture f) {
        List<ShardIdMigration.Move> moves =
                new ShardIdMigration(new TableLocation(f.store, f.uri, Map.of()), f.allocator).run(line -> {});
        assertThat(moves).containsExactly(new ShardIdMigration.Move(BUCKET, legacy(f), ShardIds.bucket(BUCKET)));
    }
}
