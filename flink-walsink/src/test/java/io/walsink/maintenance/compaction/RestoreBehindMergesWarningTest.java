package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import io.walsink.testing.LogCapture;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restore warns only when the base table holds generations the restored state does
 * not (and then resets the shard's rows, or, for a checkpoint of an earlier release, says that
 * merged rows stay). A state whose SSTables were all merged (and so dropped from its manifest)
 * lists none, yet is not behind the base table.
 */
class RestoreBehindMergesWarningTest {
    private static final String WARNING = "newer than the state being restored";
    private static final int BUCKET = 0;

    @TempDir
    Path dir;

    @Test
    void aStateListingNoSsTablesBecauseAllWereMergedRestoresWithoutTheWarning() {
        long seed = System.nanoTime();
        System.out.println("RestoreBehindMergesWarningTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            f.randomOps(writer, BUCKET, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            f.randomOps(writer, BUCKET, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            assertThat(mergedByOneRun(f)).containsExactly(1L, 2L);
            writer.close();
            ShardWriter next = f.open(BUCKET); // the claim drops the merged SSTables from the manifest
            f.randomOps(next, BUCKET, 30, 80, "wal");
            SyncShardDriver.appendAllPending(next);
            ShardDescriptor checkpoint = next.snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            next.close();
            assertThat(checkpoint.publishedGeneration())
                    .as("the state lists no SSTables")
                    .isZero();
            assertThat(checkpoint.unpublished()).isEmpty();

            List<String> warnings = restoreWarnings(f, checkpoint);
            assertThat(warnings)
                    .as("nothing merged is newer than the state (seed %s)", seed)
                    .noneMatch(m -> m.contains(WARNING));
            assertThat(f.read(ReadMode.LATEST)).isEqualTo(List.copyOf(atCheckpoint.values()));
        }
    }

    @Test
    void aStateOlderThanTheMergedGenerationsIsResetAndSaysSo() {
        long seed = System.nanoTime();
        System.out.println("RestoreBehindMergesWarningTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            f.randomOps(writer, BUCKET, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            f.randomOps(writer, BUCKET, 20, 80, "wal"); // rows of generation 2, in the WAL only
            SyncShardDriver.appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot(); // holds generation 1 and part of 2
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            f.randomOps(writer, BUCKET, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            f.randomOps(writer, BUCKET, 40, 80, "g3");
            CompactionFixture.publishGeneration(List.of(writer));
            assertThat(mergedByOneRun(f)).containsExactly(1L, 2L, 3L);
            writer.close();

            List<String> warnings = restoreWarnings(f, checkpoint);
            assertThat(warnings)
                    .as("generations 2 and 3 hold rows after the state (seed %s)", seed)
                    .anyMatch(m -> m.contains(WARNING)
                            && m.contains("through 3")
                            && m.contains("(through 1)")
                            && m.contains("were reset to base version"));
            assertThat(f.read(ReadMode.LATEST))
                    .as("the rows merged after the state are rolled back (seed %s)", seed)
                    .isEqualTo(List.copyOf(atCheckpoint.values()));
        }
    }

    /** A checkpoint of the previous release recorded no base version: the old warning, and the merged rows stay. */
    @Test
    void aStateWithoutABaseVersionIsWarnedThatMergedRowsStay() {
        long seed = System.nanoTime();
        System.out.println("RestoreBehindMergesWarningTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(BUCKET);
            f.randomOps(writer, BUCKET, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            ShardDescriptor checkpoint = withoutBaseVersion(writer.snapshot());
            f.randomOps(writer, BUCKET, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            assertThat(mergedByOneRun(f)).containsExactly(1L, 2L);
            writer.close();

            List<String> warnings = restoreWarnings(f, checkpoint);
            assertThat(warnings)
                    .as("seed %s", seed)
                    .anyMatch(m -> m.contains(WARNING)
                            && m.contains("merged rows cannot be rolled back")
                            && m.contains("earlier release"));
        }
    }

    private static ShardDescriptor withoutBaseVersion(ShardDescriptor d) {
        return new ShardDescriptor(
                d.shardId(),
                d.bucket(),
                d.epoch(),
                d.replayAfter(),
                d.durablePosition(),
                d.currentGeneration(),
                d.publishedGeneration(),
                d.manifestVersion(),
                0,
                d.unpublished());
    }

    /** The generations of the one shard that a compaction run merges. */
    private static List<Long> mergedByOneRun(CompactionFixture f) {
        return f.compactor(CompactorOptions.defaults()).run().shards().get(0).mergedGenerations();
    }

    /** Restores {@code checkpoint}; the WARN lines the restore logged. */
    private static List<String> restoreWarnings(CompactionFixture f, ShardDescriptor checkpoint) {
        try (LogCapture log = LogCapture.of(ShardRestore.class)) {
            f.restore(checkpoint).close();
            return log.messages(Level.WARN);
        }
    }
}
