package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
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
 * Compactions that land while a reader reads, with the writers dropping the merged SSTables from
 * their manifests meanwhile: the reader must neither miss the merged rows (found in neither the
 * base version it read nor the manifests) nor fail. This is the path the SQL scan source takes
 * per split.
 */
class CompactionDuringReadTest {
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aReadThatACompactionOvertookMissesNothing() {
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

            List<Map<String, Object>> read = CompactionFixture.byId(
                    new SnapshotReader(new TableLocation(racing, f.uri, Map.of()), WalSchemaProfile.SPEC, f.allocator)
                            .read(ReadMode.COMMITTED)
                            .rows());

            assertThat(merged.get()).as("the compaction ran inside the read").isEqualTo(4);
            assertThat(read).as("seed %s", seed).isEqualTo(expected);
            writers.forEach(ShardWriter::close);
        }
    }

    /**
     * The race that fails a read retrying while merge progress moves ("kept moving"; 1.5-2.2% of
     * committed reads under maintenance every 2 s): a new generation is published and compacted,
     * and the writers drop it, inside the read between its first manifest and the base table, every
     * time the reader reads a manifest after listing the shards. The read ends without failing and equals the table as it stood
     * after the last such compaction.
     */
    @Test
    void compactionsInsideEveryReadNeverFailIt() {
        long seed = System.nanoTime();
        System.out.println("CompactionDuringReadTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = new ArrayList<>(f.openAll());
            f.randomOps(writers, 100, 40, "g0");
            CompactionFixture.publishGeneration(writers);
            AtomicInteger listings = new AtomicInteger();
            AtomicInteger compactedAtListing = new AtomicInteger(-1);
            AtomicInteger compactions = new AtomicInteger();
            ForwardingObjectStore racing = new ForwardingObjectStore(f.store) {
                @Override
                public ListPage list(String prefix, String continuation, int maxKeys) {
                    if (prefix.startsWith("_mem_wal/") && continuation == null) {
                        listings.incrementAndGet();
                    }
                    return super.list(prefix, continuation, maxKeys);
                }

                @Override
                public byte[] get(String key) {
                    byte[] manifest = super.get(key);
                    if (key.contains("/manifest/") && compactedAtListing.getAndSet(listings.get()) != listings.get()) {
                        // The first manifest this read pass reads: a generation more, merged and dropped.
                        f.randomOps(writers, 50, 40, "during-" + compactions.get());
                        CompactionFixture.publishGeneration(writers);
                        assertThat(f.compactor(CompactorOptions.defaults())
                                        .run()
                                        .mergedGenerations())
                                .isPositive();
                        compactions.incrementAndGet();
                        writers.forEach(ShardWriter::close);
                        writers.clear();
                        writers.addAll(f.openAll());
                    }
                    return manifest;
                }
            };

            List<Map<String, Object>> read = CompactionFixture.byId(
                    new SnapshotReader(new TableLocation(racing, f.uri, Map.of()), WalSchemaProfile.SPEC, f.allocator)
                            .read(ReadMode.COMMITTED)
                            .rows());

            assertThat(compactions.get()).as("compactions ran inside the read").isPositive();
            assertThat(read).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }
}
