package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.maintenance.CompactorOptions;
import io.walsink.recovery.CommitHook;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore ends exactly as the restored checkpoint, whatever the
 * compactor merged of other branches or left half-merged since. Each test reads the restored table
 * through walsink's reader (LATEST and, after publishing, COMMITTED) and, after one more
 * compaction, the base table alone and lance-core's LsmScanner.
 */
class RestoreAcrossMergesTest {
    private static final int BUCKET = 0;

    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    /** Scenario 1: roll back, let a branch publish and be merged, then roll forward. */
    @Test
    void rollingForwardPastABranchTheCompactorMergedRestoresTheNewerCheckpoint() {
        long seed = System.nanoTime();
        System.out.println("RestoreAcrossMergesTest scenario 1 seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            long k0 = keyOfBucket(1000); // outside the random ops' ids
            long k1 = keyOfBucket(k0 + 1);
            long k2 = keyOfBucket(k1 + 1);
            ShardWriter writer = f.open(BUCKET);
            f.put(writer, k0, "g1", 1);
            f.randomOps(writer, BUCKET, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            f.put(writer, k1, "g2", 2);
            f.randomOps(writer, BUCKET, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s2 = writer.snapshot();
            Map<Long, Map<String, Object>> atS2 = new TreeMap<>(f.model);
            writer.close();

            // Restore S1; that branch publishes generation 3, and compaction merges 1 and 3.
            f.model.clear();
            f.model.putAll(atS1);
            ShardWriter branch = f.restore(s1);
            f.put(branch, k2, "branch", 3);
            f.randomOps(branch, BUCKET, 40, 80, "branch");
            CompactionFixture.publishGeneration(List.of(branch));
            branch.close();
            assertThat(mergedByOneRun(f))
                    .as("the branch's generation is merged")
                    .contains(1L, 3L);

            f.model.clear();
            f.model.putAll(atS2);
            ShardWriter restored = f.restore(s2);

            f.assertRestoredTo(restored, atS2, seed);
        }
    }

    /** Scenario 2: the compactor commits a generation's deletes, dies before marking it merged; an older checkpoint is restored. */
    @Test
    void aGenerationHalfMergedWhenAnOlderCheckpointIsRestoredIsRolledBack() {
        long seed = System.nanoTime();
        System.out.println("RestoreAcrossMergesTest scenario 2 seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            long k0 = keyOfBucket(1000); // outside the random ops' ids
            long k1 = keyOfBucket(k0 + 1);
            ShardWriter writer = f.open(BUCKET);
            f.put(writer, k0, "a", 1);
            f.put(writer, k1, "b", 2);
            f.randomOps(writer, BUCKET, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor s1 = writer.snapshot();
            Map<Long, Map<String, Object>> atS1 = new TreeMap<>(f.model);
            // Generation 2: a delete and an upsert, so its merge takes two commits.
            f.delete(writer, k0);
            f.put(writer, k1, "b2", 3);
            f.randomOps(writer, BUCKET, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();

            boolean[] crashed = {false};
            CommitHook crashBeforeMarkingTwo = (shard, generation, step) -> {
                if (generation == 2 && step == CommitHook.Step.MERGE_AND_MARK) {
                    crashed[0] = true;
                    throw new CompactionFixture.Crash();
                }
            };
            assertThatThrownBy(() -> f.compactor(CompactorOptions.defaults(), crashBeforeMarkingTwo)
                            .run())
                    .isInstanceOf(CompactionFixture.Crash.class);
            assertThat(crashed[0]).as("the crash fired").isTrue();
            assertThat(f.merged().get(CompactionFixture.SHARDS.get(BUCKET)))
                    .as("generation 2 is not marked merged")
                    .isEqualTo(1L);
            assertThat(f.baseRows())
                    .as("generation 2's delete landed in the base table")
                    .noneMatch(r -> r.get("id").equals(k0));
            assertThat(journalKeys(f)).as("the journal tells the half merge").hasSize(1);

            f.model.clear();
            f.model.putAll(atS1);
            ShardWriter restored = f.restore(s1);
            assertThat(journalKeys(f)).as("the rolled-back merge is forgotten").isEmpty();

            f.assertRestoredTo(restored, atS1, seed);
        }
    }

    /** A compactor that finishes leaves no journal record behind: the journal does not grow with the merges. */
    @Test
    void finishedMergesLeaveNoJournalRecord() {
        long seed = System.nanoTime();
        System.out.println("RestoreAcrossMergesTest journal seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int g = 1; g <= 3; g++) {
                f.randomOps(writers, 60, 80, "g" + g);
                CompactionFixture.publishGeneration(writers);
            }
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(6);
            assertThat(journalKeys(f)).isEmpty();
            writers.forEach(ShardWriter::close);
        }
    }

    private static List<String> journalKeys(CompactionFixture f) {
        return f.store.listAll("_walsink/merges/").stream().map(m -> m.key()).toList();
    }

    /** The first id at or after {@code from} that falls into the shard's bucket. */
    private static long keyOfBucket(long from) {
        long id = from;
        while (CompactionFixture.bucketOf(id) != BUCKET) {
            id++;
        }
        return id;
    }

    private static List<Long> mergedByOneRun(CompactionFixture f) {
        UUID shard = CompactionFixture.SHARDS.get(BUCKET);
        return f.compactor(CompactorOptions.defaults()).run().shards().stream()
                .filter(s -> s.shardId().equals(shard))
                .findFirst()
                .orElseThrow()
                .mergedGenerations();
    }
}
