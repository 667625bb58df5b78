package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint taken before compaction, restored after it: the SSTables it pins were merged (one
 * even removed, as garbage collection would), yet the restore succeeds and the table equals the
 * checkpoint's state; the merged SSTables stay out of the manifest.
 */
class CompactorRestoreTest {
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aCheckpointTakenBeforeCompactionRestoresToItsStateAfterIt() {
        long seed = System.nanoTime();
        System.out.println("CompactorRestoreTest seed " + seed);
        int bucket = 0;
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(bucket);
            f.randomOps(writer, bucket, 60, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            f.randomOps(writer, bucket, 60, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            // Generation 3 written but not yet published at the checkpoint, and rows in the WAL only.
            f.randomOps(writer, bucket, 60, 80, "g3");
            SyncShardDriver.appendAllPending(writer);
            writer.freezeActive();
            SyncShardDriver.flushFrozen(writer);
            f.randomOps(writer, bucket, 30, 80, "wal");
            SyncShardDriver.appendAllPending(writer);
            ShardDescriptor checkpoint = writer.snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
            assertThat(checkpoint.publishedGeneration()).isEqualTo(2);
            assertThat(checkpoint.unpublished()).hasSize(1);

            // The checkpoint completes (generation 3 is published), compaction merges 1-3, and the
            // writer goes on to write rows after the checkpoint, then dies.
            SyncShardDriver.publishAll(writer);
            CompactionResult result = f.compactor(CompactorOptions.defaults()).run();
            assertThat(result.shards().get(0).mergedGenerations()).containsExactly(1L, 2L, 3L);
            f.randomOps(writer, bucket, 40, 80, "orphan");
            SyncShardDriver.appendAllPending(writer);
            writer.close();
            // Garbage collection removed a merged SSTable.
            deleteTree(f.tablePath.resolve(firstSsTable(f)));

            ShardWriter restored = f.restore(checkpoint);

            List<Map<String, Object>> expected = List.copyOf(atCheckpoint.values());
            assertThat(restored.manifest().sstables())
                    .as("merged SSTables stay out")
                    .isEmpty();
            assertThat(f.read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(expected);
            CompactionFixture.publishGeneration(List.of(restored));
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("COMMITTED, seed %s", seed)
                    .isEqualTo(expected);
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(1);
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(expected);
            restored.close();
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The folder of generation 1, relative to the table. */
    private static String firstSsTable(CompactionFixture f) {
        return f.store.listAll("_mem_wal/").stream()
                .map(m -> m.key())
                .filter(k -> k.contains("_gen_1/"))
                .map(k -> k.substring(0, k.indexOf("_gen_1/") + "_gen_1".length()))
                .findFirst()
                .orElseThrow();
    }
}
