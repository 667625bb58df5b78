package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.SsTable;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compactor runs over and over while writers on another thread keep publishing generations
 * (their manifest updates drop what the compactor merged meanwhile): every generation is merged
 * exactly once, in order, and the final table equals the model.
 */
class CompactorConcurrentWriterTest {
    private static final int ROUNDS = 12;

    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void compactionWhileWritersPublishEndsAtTheModel() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CompactorConcurrentWriterTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            // Handshakes, not sleeps: the writer waits at two points for a compaction run that merged
            // something, so runs really overlap with its publications.
            Semaphore merged = new Semaphore(0);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                for (int round = 1; round <= ROUNDS; round++) {
                    f.randomOps(writers, 60, 80, "r" + round);
                    CompactionFixture.publishGeneration(writers);
                    if (round == ROUNDS / 3 || round == 2 * ROUNDS / 3) {
                        acquire(merged);
                    }
                }
            });
            Map<UUID, List<Long>> mergedByShard = new HashMap<>();
            int runs = 0;
            while (!writing.isDone()) {
                CompactionResult result =
                        f.compactor(CompactorOptions.defaults()).run();
                runs++;
                record(result, mergedByShard);
                if (result.mergedGenerations() > 0) {
                    merged.release();
                }
            }
            writing.get(1, TimeUnit.MINUTES); // rethrows a writer failure
            record(f.compactor(CompactorOptions.defaults()).run(), mergedByShard);
            List<Map<String, Object>> expected = f.modelRows();

            assertThat(runs).as("runs during the writes").isGreaterThanOrEqualTo(2);
            for (int b = 0; b < CompactionFixture.BUCKETS; b++) {
                UUID shard = CompactionFixture.SHARDS.get(b);
                long last = writers.get(b).manifest().currentGeneration() - 1;
                List<Long> all = new ArrayList<>();
                for (long g = 1; g <= last; g++) {
                    all.add(g);
                }
                assertThat(mergedByShard.get(shard))
                        .as("every generation of shard %s merged once, in order (seed %s)", shard, seed)
                        .containsExactlyElementsOf(all);
            }
            assertThat(f.baseRows()).as("base table, seed %s", seed).isEqualTo(expected);
            assertThat(f.lsmScan()).as("LsmScanner, seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED))
                    .as("COMMITTED, seed %s", seed)
                    .isEqualTo(expected);
            assertThat(f.read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(expected);
            // The writers' manifests no longer list generations merged before their last update.
            for (int b = 0; b < CompactionFixture.BUCKETS; b++) {
                Set<Long> listed = new HashSet<>();
                writers.get(b).manifest().sstables().forEach(t -> listed.add(t.generation()));
                assertThat(listed).as("shard %s lists %s", b, listed).hasSizeLessThan(ROUNDS);
                assertThat(writers.get(b).manifest().sstables())
                        .extracting(SsTable::generation)
                        .isSorted();
            }
            writers.forEach(ShardWriter::close);
        }
    }

    private static void record(CompactionResult result, Map<UUID, List<Long>> mergedByShard) {
        for (CompactionResult.ShardResult s : result.shards()) {
            mergedByShard.computeIfAbsent(s.shardId(), k -> new ArrayList<>()).addAll(s.mergedGenerations());
        }
    }

    private static void acquire(Semaphore s) {
        try {
            if (!s.tryAcquire(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("no compaction run merged anything within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
