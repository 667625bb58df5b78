package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.SsTable;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.cleanup.CleanupPolicy;
import org.lance.compaction.CompactionOptions;

/**
 * A table written by the engine with upserts and deletes, compacted: lance-core's LsmScanner, a
 * plain lance-core scan of the base table and walsink's TableReader (both modes) all equal the
 * model, and the writers then drop the merged SSTables and replay nothing again.
 */
class CompactorOracleTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder (target/tmp).
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aCompactedTableReadsAsTheModelEverywhere() {
        long seed = System.nanoTime();
        System.out.println("CompactorOracleTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 4; generation++) {
                f.randomOps(writers, 120, 60, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            assertThat(expected).as("seed %s", seed).isNotEmpty();

            CompactionResult result = f.compactor(CompactorOptions.defaults()).run();

            assertThat(result.mergedGenerations()).as("seed %s", seed).isEqualTo(8);
            for (CompactionResult.ShardResult shard : result.shards()) {
                assertThat(shard.mergedGenerations()).as("seed %s", seed).containsExactly(1L, 2L, 3L, 4L);
                assertThat(shard.mergedThrough()).isEqualTo(4);
            }
            // The base table alone holds everything now, deletes applied.
            assertThat(f.baseRows()).as("plain base scan, seed %s", seed).isEqualTo(expected);
            assertThat(f.lsmScan()).as("LsmScanner, seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("COMMITTED, seed %s", seed)
                    .isEqualTo(expected);
            assertThat(f.read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(expected);

            // Nothing left to merge: a second run commits nothing.
            CompactionResult again = f.compactor(CompactorOptions.defaults()).run();
            assertThat(again.mergedGenerations()).isZero();
            assertThat(again.baseVersion()).isEqualTo(result.baseVersion());

            // The writers drop the merged generations at their next manifest update.
            f.randomOps(writers, 60, 60, "g5");
            CompactionFixture.publishGeneration(writers);
            for (ShardWriter w : writers) {
                assertThat(w.manifest().sstables())
                        .extracting(SsTable::generation)
                        .containsExactly(5L);
            }
            expected = f.modelRows();
            assertThat(f.read(ReadMode.COMMITTED)).as("after g5, seed %s", seed).isEqualTo(expected);

            // Some rows only in the WAL, then a crash: reopening replays those and nothing merged.
            f.randomOps(writers, 20, 60, "wal");
            for (ShardWriter w : writers) {
                SyncShardDriver.appendAllPending(w);
                w.close();
            }
            expected = f.modelRows();
            f.compactor(CompactorOptions.defaults()).run(); // merges generation 5
            List<ShardWriter> reopened = f.openAll();
            long replayed =
                    reopened.stream().mapToLong(w -> w.stats().replayedRows()).sum();
            assertThat(replayed)
                    .as("only the WAL tail is replayed, seed %s", seed)
                    .isEqualTo(20);
            for (ShardWriter w : reopened) {
                assertThat(w.manifest().sstables())
                        .as("the claim drops merged SSTables")
                        .isEmpty();
            }
            assertThat(f.read(ReadMode.LATEST))
                    .as("LATEST after reopen, seed %s", seed)
                    .isEqualTo(expected);
            CompactionFixture.publishGeneration(reopened);
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("COMMITTED after reopen, seed %s", seed)
                    .isEqualTo(expected);
            f.compactor(CompactorOptions.defaults()).run();
            assertThat(f.baseRows())
                    .as("base after the last merge, seed %s", seed)
                    .isEqualTo(expected);
            reopened.forEach(ShardWriter::close);
        }
    }

    @Test
    void housekeepingCompactsFilesAndCleansUpVersionsKeepingTheMergeProgress() {
        long seed = System.nanoTime();
        System.out.println("CompactorOracleTest housekeeping seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 3; generation++) {
                f.randomOps(writers, 80, 40, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            CompactorOptions options = CompactorOptions.defaults()
                    .withFileCompaction(CompactionOptions.builder()
                            .withTargetRowsPerFragment(1_000_000)
                            .withDeferIndexRemap(true)
                            .build())
                    .withCleanup(CleanupPolicy.builder()
                            .withBeforeTimestampMillis(System.currentTimeMillis() + 60_000)
                            .build());

            CompactionResult result = f.compactor(options).run();

            assertThat(result.fileCompactionRan()).isTrue();
            assertThat(result.cleanedUpVersions())
                    .hasValueSatisfying(v -> assertThat(v).isPositive());
            assertThat(f.merged())
                    .containsEntry(CompactionFixture.SHARDS.get(0), 3L)
                    .containsEntry(CompactionFixture.SHARDS.get(1), 3L);
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED)).as("seed %s", seed).isEqualTo(expected);
            assertThat(f.lsmScan()).as("seed %s", seed).isEqualTo(expected);
            writers.forEach(ShardWriter::close);
        }
    }
}
