package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.manifest.SsTable;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** Crashes of the compactor and of the writer around a merge, then retries: nothing is merged twice or lost. */
class CompactorCrashRetryTest {
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aWriterCrashBetweenTheMergeAndItsManifestUpdateMergesNothingTwice() {
        long seed = System.nanoTime();
        System.out.println("CompactorCrashRetryTest writer crash seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 3; generation++) {
                f.randomOps(writers, 100, 50, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            CompactionResult first = f.compactor(CompactorOptions.defaults()).run();
            assertThat(first.mergedGenerations()).isEqualTo(6);
            // The writers die before any manifest update: their manifests still list generations 1-3.
            writers.forEach(ShardWriter::close);

            CompactionResult retry = f.compactor(CompactorOptions.defaults()).run();

            assertThat(retry.mergedGenerations()).as("nothing merged twice").isZero();
            assertThat(retry.baseVersion()).as("no commit at all").isEqualTo(first.baseVersion());
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED)).as("seed %s", seed).isEqualTo(expected);

            // The next writers drop the merged generations when they claim, and replay nothing.
            List<ShardWriter> reopened = f.openAll();
            for (ShardWriter w : reopened) {
                assertThat(w.manifest().sstables()).isEmpty();
                assertThat(w.stats().replayedRows()).isZero();
                assertThat(w.manifest().currentGeneration())
                        .as("generations are not reused")
                        .isEqualTo(4);
            }
            assertThat(f.read(ReadMode.LATEST)).as("seed %s", seed).isEqualTo(expected);
            f.randomOps(reopened, 50, 50, "g4");
            CompactionFixture.publishGeneration(reopened);
            for (ShardWriter w : reopened) {
                assertThat(w.manifest().sstables())
                        .extracting(SsTable::generation)
                        .containsExactly(4L);
            }
            expected = f.modelRows();
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(expected);
            reopened.forEach(ShardWriter::close);
        }
    }

    @Test
    void aCompactorCrashBetweenCommitsIsFinishedByTheNextRun() {
        long seed = System.nanoTime();
        System.out.println("CompactorCrashRetryTest compactor crash seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 3; generation++) {
                f.randomOps(writers, 100, 50, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            UUID shard = CompactionFixture.SHARDS.get(0);
            // Dies after generation 2's deletes are committed, before its upserts and mark; and a
            // first run that stops after generation 1 of every shard.
            f.compactor(CompactorOptions.defaults().withMaxGenerationsPerShard(1))
                    .run();
            assertThat(f.merged()).containsEntry(shard, 1L);
            CommitHook crashAfterDeletes = (s, generation, step) -> {
                if (s.equals(shard) && generation == 2 && step == CommitHook.Step.MERGE_AND_MARK) {
                    throw new CompactionFixture.Crash();
                }
            };
            assertThatThrownBy(() -> f.compactor(CompactorOptions.defaults(), crashAfterDeletes)
                            .run())
                    .isInstanceOf(CompactionFixture.Crash.class);
            assertThat(f.merged()).as("generation 2 is not marked").containsEntry(shard, 1L);
            // Readers are right in between: the SSTable still wins over the base table.
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("mid-crash, seed %s", seed)
                    .isEqualTo(expected);

            CompactionResult retry = f.compactor(CompactorOptions.defaults()).run();

            assertThat(retry.shards()).hasSize(2).allSatisfy(r -> assertThat(r.mergedGenerations())
                    .as("shard %s", r.shardId())
                    .containsExactly(2L, 3L));
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(expected);
            assertThat(f.lsmScan()).as("LsmScanner, seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.LATEST)).as("seed %s", seed).isEqualTo(expected);
            writers.forEach(ShardWriter::close);
        }
    }
}
