package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generations of different buckets' shards merge into the base table in one commit (their keys
 * are disjoint): a table of hundreds of buckets would otherwise pay a commit per shard and
 * checkpoint. Counted in base table versions, one per commit; every reader still sees the model,
 * a crash leaves all of a commit's generations unmerged, and a shard not named after its bucket
 * (as earlier releases named them) merges alone.
 */
class BatchedMergeTest {
    private static final int GENERATIONS = 3; // per shard

    @TempDir
    Path dir;

    @Test
    void generationsOfDifferentBucketsShareOneCommit() {
        long seed = System.nanoTime();
        System.out.println("BatchedMergeTest seed " + seed);
        for (int perCommit : new int[] {CompactorOptions.DEFAULT_MAX_GENERATIONS_PER_COMMIT, 1}) {
            try (CompactionFixture f = new CompactionFixture(dir.resolve("per-commit-" + perCommit), seed)) {
                List<ShardWriter> writers = f.openAll();
                publishUpserts(f, writers);
                long before = f.baseVersion();

                CompactionResult result = f.compactor(
                                CompactorOptions.defaults().withMaxGenerationsPerCommit(perCommit))
                        .run();

                assertThat(result.mergedGenerations()).isEqualTo(2 * GENERATIONS);
                // Upserts only: one commit per turn of both shards, or one per generation.
                assertThat(f.baseVersion() - before)
                        .as("base commits at %s generations per commit, seed %s", perCommit, seed)
                        .isEqualTo(perCommit == 1 ? 2 * GENERATIONS : GENERATIONS);
                assertThat(f.merged())
                        .containsEntry(CompactionFixture.SHARDS.get(0), (long) GENERATIONS)
                        .containsEntry(CompactionFixture.SHARDS.get(1), (long) GENERATIONS);
                assertEveryReaderSeesTheModel(f, seed);
                writers.forEach(ShardWriter::close);
            }
        }
    }

    @Test
    void upsertsAndDeletesOfSeveralShardsTakeTwoCommitsATurn() {
        long seed = System.nanoTime();
        System.out.println("BatchedMergeTest deletes seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int g = 1; g <= GENERATIONS; g++) {
                f.randomOps(writers, 120, 40, "g" + g); // 30% deletes, over keys seen before
                CompactionFixture.publishGeneration(writers);
            }
            long before = f.baseVersion();

            CompactionResult result = f.compactor(CompactorOptions.defaults()).run();

            assertThat(result.mergedGenerations()).isEqualTo(2 * GENERATIONS);
            assertThat(f.baseVersion() - before).as("seed %s", seed).isBetween((long) GENERATIONS, 2L * GENERATIONS);
            assertEveryReaderSeesTheModel(f, seed);
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aCrashBeforeTheSharedCommitLeavesEveryGenerationOfItUnmerged() {
        long seed = System.nanoTime();
        System.out.println("BatchedMergeTest crash seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            publishUpserts(f, writers);
            AtomicReference<UUID> first = new AtomicReference<>();
            CommitHook crashAtTheSecondShard = (shard, generation, step) -> {
                first.compareAndSet(null, shard);
                if (!shard.equals(first.get())) {
                    throw new CompactionFixture.Crash(); // before the commit for the second shard
                }
            };

            assertThatThrownBy(() -> f.compactor(CompactorOptions.defaults(), crashAtTheSecondShard)
                            .run())
                    .isInstanceOf(CompactionFixture.Crash.class);

            // Merged one commit at a time, the first shard's generation 1 would be in by now.
            assertThat(f.merged())
                    .as("seed %s", seed)
                    .doesNotContainKeys(CompactionFixture.SHARDS.toArray(UUID[]::new));
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("mid-crash, seed %s", seed)
                    .isEqualTo(f.modelRows());
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2 * GENERATIONS);
            assertEveryReaderSeesTheModel(f, seed);
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aStopRequestEndsTheRunAfterTheCommitInProgress() {
        long seed = System.nanoTime();
        System.out.println("BatchedMergeTest stop seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            publishUpserts(f, writers);
            AtomicReference<TableCompaction> stopping = new AtomicReference<>();
            stopping.set(f.compactor(CompactorOptions.defaults(), (shard, generation, step) -> stopping.get()
                    .requestStop()));

            assertThat(stopping.get().run().mergedGenerations())
                    .as("both shards' first generations, one commit")
                    .isEqualTo(2);
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2 * GENERATIONS - 2);
            assertEveryReaderSeesTheModel(f, seed);
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aShardNotNamedAfterItsBucketMergesAlone() {
        long seed = System.nanoTime();
        System.out.println("BatchedMergeTest legacy id seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            UUID legacy = UUID.fromString("0b5e2d3c-1a4f-4c6b-8d7e-9f0a1b2c3d4e");
            List<ShardWriter> writers = List.of(f.openAs(legacy, 0), f.open(1));
            publishUpserts(f, writers);
            long before = f.baseVersion();

            CompactionResult result = f.compactor(CompactorOptions.defaults()).run();

            assertThat(result.mergedGenerations()).isEqualTo(2 * GENERATIONS);
            assertThat(f.baseVersion() - before).as("seed %s", seed).isEqualTo(2L * GENERATIONS);
            assertThat(f.merged())
                    .containsEntry(legacy, (long) GENERATIONS)
                    .containsEntry(CompactionFixture.SHARDS.get(1), (long) GENERATIONS);
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(f.modelRows());
            assertThat(f.read(ReadMode.COMMITTED)).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }

    /** Generations of upserts only (new keys and rewrites of earlier ones) on every shard. */
    private static void publishUpserts(CompactionFixture f, List<ShardWriter> writers) {
        long id = 0;
        for (int g = 1; g <= GENERATIONS; g++) {
            for (int b = 0; b < writers.size(); b++) {
                for (int row = 0; row < 20; row++) {
                    do {
                        id = (id + 1) % 60; // from the second generation on, rewrites
                    } while (CompactionFixture.bucketOf(id) != b);
                    f.put(writers.get(b), id, "g" + g + "-" + row, g * 100 + row);
                }
            }
            CompactionFixture.publishGeneration(writers);
        }
    }

    private static void assertEveryReaderSeesTheModel(CompactionFixture f, long seed) {
        List<Map<String, Object>> expected = f.modelRows();
        assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(expected);
        assertThat(f.lsmScan()).as("LsmScanner, seed %s", seed).isEqualTo(expected);
        assertThat(f.read(ReadMode.COMMITTED))
                .as("walsink COMMITTED, seed %s", seed)
                .isEqualTo(expected);
        assertThat(f.read(ReadMode.LATEST)).as("walsink LATEST, seed %s", seed).isEqualTo(expected);
    }
}
