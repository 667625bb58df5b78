package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.migration.ShardIdMigration;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.MaintenanceExclusion;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restores across merges in which a crash, a store fault, a key index, a fenced attempt or a
 * shard-id migration risks lost or resurrected committed rows. Each test drives the real engine,
 * compactor and lance-core base table to the failing point, then checks every reader against the
 * model of the restored checkpoint.
 */
class RestoreFaultCasesTest {
    private static final int BUCKET = 0;

    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    /** A BTREE index on the key: lance-core 7.0.0's merge-insert deletes none of the rows it covers. */
    @Test
    void aKeyIndexDoesNotKeepRowsTheResetRemoves() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest key index seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<Long> keys = keysOfBucket(30);
            ShardWriter writer = f.open(BUCKET);
            for (int i = 0; i < 10; i++) {
                f.put(writer, keys.get(i), "g1-" + i, i);
            }
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            for (int i = 10; i < 30; i++) {
                f.put(writer, keys.get(i), "g2-" + i, i);
            }
            f.put(writer, keys.get(0), "g2-updated", 100);
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);
            f.createKeyIndex();

            f.model.clear();
            f.model.putAll(atS1);
            f.assertRestoredTo(f.restore(s1), atS1, seed);
        }
    }

    /**
     * The first restore resets the bucket, forgets the half merge's journal record and fails copying
     * an SSTable; the retry must still know the base table does not hold the checkpoint's rows.
     */
    @Test
    void aRestoreThatFailsAfterItsResetIsCompletedByTheRetry() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest retry after reset seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<Long> keys = keysOfBucket(3);
            ShardWriter writer = f.open(BUCKET);
            f.put(writer, keys.get(0), "a", 1);
            f.put(writer, keys.get(1), "b", 2);
            f.randomOps(writer, BUCKET, 30, 60, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            f.delete(writer, keys.get(1));
            f.put(writer, keys.get(2), "c", 3);
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            crashBeforeMarking(f, 2);

            FailingPuts copies = new FailingPuts(f, key -> key.contains("/_versions/"));
            assertThatThrownBy(() -> ShardRestore.restore(copies.context, s1, f.placement(BUCKET)))
                    .hasMessageContaining("simulated put failure");
            assertThat(copies.failed.get()).as("the copy's put failed").isEqualTo(1);

            f.model.clear();
            f.model.putAll(atS1);
            f.assertRestoredTo(f.restore(s1), atS1, seed);
        }
    }

    /** A delete-only generation on a key-indexed table: its plain delete commits before the mark. */
    @Test
    void aDeleteOnlyMergeOnAKeyIndexedTableThatDiesBeforeItsMarkIsRolledBack() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest delete-only seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<Long> keys = keysOfBucket(2);
            ShardWriter writer = f.open(BUCKET);
            f.put(writer, keys.get(0), "a", 1);
            f.put(writer, keys.get(1), "b", 2);
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(1);
            f.createKeyIndex();
            f.delete(writer, keys.get(1));
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            boolean[] journalled = {false};
            crashBeforeMarking(f, 2, () -> journalled[0] = !journalKeys(f).isEmpty());
            assertThat(journalled[0])
                    .as("the journal names the generation while its deletes may be in the base table")
                    .isTrue();
            assertThat(f.baseRows())
                    .as("the plain delete landed before the crash")
                    .noneMatch(r -> r.get("id").equals(keys.get(1)));

            f.model.clear();
            f.model.putAll(atS1);
            f.assertRestoredTo(f.restore(s1), atS1, seed);
        }
    }

    /**
     * Attempt 1 claims the shard and stalls; attempt 2 restores the same checkpoint, writes a key,
     * publishes it and the compactor merges it; attempt 1 resumes. It must stop as fenced before it
     * touches the base table, so attempt 2's row stays.
     */
    @Test
    void aFencedRestoreTouchesNothing() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest fenced restore seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<Long> keys = keysOfBucket(3);
            ShardWriter writer = f.open(BUCKET);
            f.put(writer, keys.get(0), "a", 1);
            f.randomOps(writer, BUCKET, 30, 60, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            f.put(writer, keys.get(1), "later", 2);
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();

            f.model.clear();
            f.model.putAll(atS1);
            AtomicInteger stalls = new AtomicInteger();
            ShardWriter[] second = new ShardWriter[1];
            MaintenanceExclusion stallThenLetAttemptTwoRun = why -> {
                if (stalls.getAndIncrement() == 0) {
                    second[0] = f.restore(s1);
                    f.put(second[0], keys.get(2), "attempt-2", 3);
                    CompactionFixture.publishGeneration(List.of(second[0]));
                    f.compactor(CompactorOptions.defaults()).run();
                }
                return () -> {};
            };
            assertThatThrownBy(
                            () -> ShardRestore.restore(f.context, s1, f.placement(BUCKET), stallThenLetAttemptTwoRun))
                    .isInstanceOf(ShardPoisonedException.class)
                    .hasMessageContaining("FENCED");
            assertThat(stalls.get()).as("attempt 1 stalled once").isEqualTo(1);
            assertThat(f.merged().get(CompactionFixture.SHARDS.get(BUCKET)))
                    .as("attempt 2's generation was merged while attempt 1 stalled")
                    .isGreaterThan(s1.coveredGeneration());

            List<Map<String, Object>> rows = List.copyOf(f.model.values());
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("COMMITTED, seed %s", seed)
                    .isEqualTo(rows);
            assertThat(f.read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(rows);
            f.compactor(CompactorOptions.defaults()).run();
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(rows);
            second[0].close();
        }
    }

    /**
     * Found by the simulation: restoring an older checkpoint resets the bucket's rows without raising
     * its merge progress, so a newer checkpoint restored next (before anything more is merged) sees
     * no merge past it, yet the base table no longer holds the generations it merged.
     */
    @Test
    void aNewerCheckpointRestoredAfterAnOlderOnesResetIsResetToo() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest older then newer seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            CompactionFixture.Checkpointed s1 = f.publishedRound(writer, BUCKET, "g1");
            CompactionFixture.Checkpointed s2 = f.publishedRound(writer, BUCKET, "g2");
            writer.close();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);

            f.modelAt(s1);
            ShardWriter older = f.restore(s1.state());
            assertThat(f.read(ReadMode.LATEST))
                    .as("LATEST at S1, seed %s", seed)
                    .isEqualTo(List.copyOf(s1.model().values()));
            older.close();

            f.modelAt(s2);
            f.assertRestoredTo(f.restore(s2.state()), s2.model(), seed);
        }
    }

    /**
     * Found by the simulation: a checkpoint whose rows were all in its WAL range, then flushed,
     * published and merged. The claim drops the merged SSTable from the manifest and keeps its
     * replay_after; the reset then takes the merged rows out of the base table, so the manifest must
     * be written again, with the rows after the sentinel, though nothing after the checkpoint is
     * left to roll back.
     */
    @Test
    void aResetWithNothingElseToRollBackStillPublishesTheCheckpointsWalRows() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest reset without orphans seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            f.randomOps(writer, BUCKET, 30, 60, "wal");
            io.walsink.shard.SyncShardDriver.appendAllPending(writer);
            ShardDescriptor walOnly = writer.snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(1);

            f.assertRestoredTo(f.restore(walOnly), atCheckpoint, seed);
        }
    }

    /**
     * Found by the simulation: a checkpoint holding a written, unpublished SSTable of generation 2;
     * an older checkpoint restored next gave generation 2 out again to its branch, which was merged.
     * Merge progress is a number, so the newer checkpoint restored last took the branch's merged
     * generation 2 for its own: the branch's rows stayed, its own were lost.
     */
    @Test
    void aGenerationWrittenButNotPublishedIsNeverGivenOutAgain() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest unpublished generation seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            f.randomOps(writer, BUCKET, 30, 60, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            f.randomOps(writer, BUCKET, 30, 60, "g2");
            io.walsink.shard.SyncShardDriver.appendAllPending(writer);
            writer.freezeActive();
            io.walsink.shard.SyncShardDriver.flushFrozen(writer);
            ShardDescriptor s2 = writer.snapshot();
            assertThat(s2.unpublished())
                    .as("generation 2 written, not published")
                    .hasSize(1);
            Map<Long, Map<String, Object>> atS2 = new TreeMap<>(f.model);
            writer.close();

            f.model.clear();
            f.model.putAll(atS1);
            ShardWriter branch = f.restore(s1);
            f.randomOps(branch, BUCKET, 30, 60, "branch");
            CompactionFixture.publishGeneration(List.of(branch));
            branch.close();
            f.compactor(CompactorOptions.defaults()).run();

            f.model.clear();
            f.model.putAll(atS2);
            f.assertRestoredTo(f.restore(s2), atS2, seed);
        }
    }

    /**
     * Found by the simulation: an older checkpoint restored while a newer one's generation 2 was
     * published; the branch counts generation 2 as its own (it starts at 3). The newer checkpoint,
     * restored next, publishes generation 2 again and it is merged; restoring the branch's
     * checkpoint last must not keep generation 2's rows, though the merge progress (2) is below the
     * branch's generations.
     */
    @Test
    void aGenerationAnotherBranchPassedOverIsNeverMergedUnderItsNumber() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest passed-over generation seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            CompactionFixture.Checkpointed s1 = f.publishedRound(writer, BUCKET, "g1");
            CompactionFixture.Checkpointed s2 = f.publishedRound(writer, BUCKET, "g2");
            writer.close();

            f.modelAt(s1);
            ShardWriter branch = f.restore(s1.state());
            CompactionFixture.Checkpointed s3 = f.publishedRound(branch, BUCKET, "branch");
            assertThat(s3.state().coveredGeneration())
                    .as("the branch passed over generation 2")
                    .isGreaterThan(2);
            branch.close();

            f.modelAt(s2);
            f.restore(s2.state()).close();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .as("s2's two generations merged")
                    .isEqualTo(2);

            f.modelAt(s3);
            f.assertRestoredTo(f.restore(s3.state()), s3.model(), seed);
        }
    }

    /** A checkpoint of an earlier release, whose SSTables were all merged before migrate-shard-ids. */
    @Test
    void aCheckpointWhoseSsTablesWereMergedBeforeTheShardIdMigrationRestores() {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest migration seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            UUID legacy = ShardIds.legacyBucket(f.table.sharding().specId(), BUCKET);
            ShardWriter writer = f.openAs(legacy, BUCKET);
            f.randomOps(writer, BUCKET, 30, 60, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            f.randomOps(writer, BUCKET, 30, 60, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor checkpoint = writer.snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            writer.close();
            assertThat(checkpoint.publishedGeneration()).isEqualTo(2);
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);

            List<ShardIdMigration.Move> moves =
                    new ShardIdMigration(new TableLocation(f.store, f.uri, Map.of()), f.allocator).run(line -> {});
            assertThat(moves).containsExactly(new ShardIdMigration.Move(BUCKET, legacy, ShardIds.bucket(BUCKET)));

            f.assertRestoredTo(f.restore(checkpoint.withShardId(ShardIds.bucket(BUCKET))), atCheckpoint, seed);
        }
    }

    /** A shard opened while its merge progress cannot be read would record no base version to reset to. */
    @Test
    void aShardIsNotOpenedWithoutItsMergeProgress() throws Exception {
        long seed = System.nanoTime();
        System.out.println("RestoreFaultCasesTest unread progress seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            Path versions = f.tablePath.resolve("_versions");
            Path hidden = f.tablePath.resolve("_versions.hidden");
            Files.move(versions, hidden);
            assertThatThrownBy(() -> f.open(BUCKET)).hasMessageContaining("merge progress");
            Files.move(hidden, versions);

            ShardWriter writer = f.open(BUCKET);
            assertThat(writer.snapshot().baseVersion()).isPositive();
            writer.close();
        }
    }

    /** Runs the compactor, which dies just before the commit that marks {@code generation} merged. */
    private static void crashBeforeMarking(CompactionFixture f, long generation) {
        crashBeforeMarking(f, generation, () -> {});
    }

    /** As above, running {@code atCrash} at the crash point. */
    private static void crashBeforeMarking(CompactionFixture f, long generation, Runnable atCrash) {
        boolean[] crashed = {false};
        CommitHook crash = (shard, g, step) -> {
            if (g == generation && step == CommitHook.Step.MERGE_AND_MARK) {
                atCrash.run();
                crashed[0] = true;
                throw new CompactionFixture.Crash();
            }
        };
        assertThatThrownBy(() -> f.compactor(CompactorOptions.defaults(), crash).run())
                .isInstanceOf(CompactionFixture.Crash.class);
        assertThat(crashed[0]).as("the crash fired").isTrue();
        assertThat(f.merged().get(CompactionFixture.SHARDS.get(BUCKET)))
                .as("generation %s is not marked merged", generation)
                .isEqualTo(generation - 1);
    }

    private static List<String> journalKeys(CompactionFixture f) {
        return f.store.listAll("_walsink/merges/").stream().map(m -> m.key()).toList();
    }

    /** The first {@code n} ids of the shard's bucket, above the random operations' ids. */
    private static List<Long> keysOfBucket(int n) {
        List<Long> keys = new java.util.ArrayList<>();
        for (long id = 1000; keys.size() < n; id++) {
            if (CompactionFixture.bucketOf(id) == BUCKET) {
                keys.add(id);
            }
        }
        return keys;
    }

    /** The fixture's table through a store whose first put of a matching key fails. */
    private static final class FailingPuts {
        final AtomicInteger failed = new AtomicInteger();
        final TableContext context;

        FailingPuts(CompactionFixture f, java.util.function.Predicate<String> matching) {
            ForwardingObjectStore store = new ForwardingObjectStore(f.store) {
                @Override
                public void put(String key, byte[] data) {
                    if (matching.test(key) && failed.compareAndSet(0, 1)) {
                        throw new StorageException(key, "simulated put failure", false);
                    }
                    super.put(key, data);
                }
            };
            this.context = new TableContext(
                    new TableLocation(store, f.table.uri(), Map.of()),
                    f.table,
                    WalSchemaProfile.SPEC,
                    f.context.config(),
                    f.allocator);
        }
    }
}
