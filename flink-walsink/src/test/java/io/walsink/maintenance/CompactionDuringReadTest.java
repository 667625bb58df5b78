package io.walsink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.shard.ShardWriter;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ListPage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction that lands between a reader's base table scan and its listing of the shards, with
 * the writers dropping the merged SSTables from their manifests meanwhile: the reader's first pass
 * finds those rows in neither place, and it must notice (the merge progress moved) and read again
 * rather than return a table without them. This is the path the SQL scan source takes per split.
 */
class CompactionDuringReadTest {
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aReadThatACompactionOvertookIsReadAgainAndMissesNothing() {
        long seed = System.nanoTime();
        System.out.println("CompactionDuringReadTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = new ArrayList<>(f.openAll());
            for (int generation = 1; generation <= 2; generation++) {
                f.randomOps(writers, 100, 40, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            assertThat(expected).isNotEmpty();
            AtomicInteger shardListings = new AtomicInteger();
            AtomicInteger merged = new AtomicInteger();
            ForwardingObjectStore racing = new ForwardingObjectStore(f.store) {
                @Override
                public ListPage list(String prefix, String continuation, int maxKeys) {
                    if (prefix.startsWith("_mem_wal/")
                            && continuation == null
                            && shardListings.getAndIncrement() == 0) {
                        // After the reader scanned the base table, before it lists the shards.
                        merged.set(
                                f.compactor(CompactorOptions.defaults()).run().mergedGenerations());
                        writers.forEach(ShardWriter::close);
                        writers.clear();
                        writers.addAll(f.openAll()); // a claim drops merged SSTables from the manifest
                        writers.forEach(w -> assertThat(w.manifest().sstables()).isEmpty());
                    }
                    return super.list(prefix, continuation, maxKeys);
                }
            };

            List<Map<String, Object>> read =
                    CompactionFixture.byId(new TableReader(f.uri, Map.of(), racing, WalSchemaProfile.SPEC, f.allocator)
                            .read(ReadMode.COMMITTED)
                            .rows());

            assertThat(merged.get()).as("the compaction ran inside the read").isEqualTo(4);
            assertThat(shardListings.get())
                    .as("the reader listed the shards again")
                    .isGreaterThanOrEqualTo(2);
            assertThat(read).as("seed %s", seed).isEqualTo(expected);
            writers.forEach(ShardWriter::close);
        }
    }
}
