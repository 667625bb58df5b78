package io.walsink.maintenance.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.CompactionFixture;
import io.walsink.shard.ShardWriter;
import io.walsink.testing.LanceRows;
import io.walsink.testing.LogCapture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.compaction.CompactionOptions;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A user's index on the base table across merges and the housekeeping file compaction, whose index remapping
 * is deferred: the compactor merges the segments that still point at the moved rows, so nothing is
 * left pending and lance-core's indexed filter returns the model's rows; a full-text index is left
 * alone (lance-core 7.0.0 can abort the JVM optimising one), with one warning.
 */
class BaseIndexRemapTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder (target/tmp).
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void indexesBuiltBeforeAFileCompactionAreMergedOntoTheMovedRows() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 2; generation++) {
                f.randomOps(writers, 80, 200, "g" + generation);
                CompactionFixture.publishGeneration(writers);
                f.compactor(CompactorOptions.defaults()).run();
            }
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                createScoreIndex(base);
            }
            for (int generation = 3; generation <= 5; generation++) {
                f.randomOps(writers, 80, 200, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }

            long before = latestVersion(f);
            CompactionResult result = f.compactor(fileCompacting()).run();

            assertThat(result.fileCompactionRan()).isTrue();
            assertThat(reuseRecordsSince(f, before))
                    .as("the file compaction moved indexed rows, seed %s", seed)
                    .anySatisfy(fragments -> assertThat(fragments).isNotEmpty());
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThat(reuseRecord(base))
                        .as("dropped once the index was rebuilt onto the moved rows, seed %s", seed)
                        .isEmpty();
                assertThat(BaseIndexRefresh.remapPending(base))
                        .as("seed %s", seed)
                        .isEmpty();
                assertThat(BaseIndexRefresh.stale(base)).as("seed %s", seed).isEmpty();
                for (int score : List.of(0, 250, 500, 750, 990)) {
                    List<Long> want = f.modelRows().stream()
                            .filter(r -> ((Integer) r.get("score")) >= score)
                            .map(r -> (Long) r.get("id"))
                            .sorted()
                            .toList();
                    assertThat(idsWhere(base, "score >= " + score))
                            .as("indexed filter score >= %s, seed %s", score, seed)
                            .isEqualTo(want);
                }
            }
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }

    /**
     * Every commit the index refresh makes (here an index rebuilt onto moved rows, then the
     * fragment-reuse record dropped) is preceded by the compactor's lease check: before, one
     * renewal covered them all, so a compactor whose lease was taken over during a long rebuild
     * still committed the rest.
     */
    @Test
    void everyCommitOfTheIndexRefreshIsPrecededByALeaseCheck() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest lease check seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 4; generation++) {
                f.randomOps(writers, 80, 200, "g" + generation);
                CompactionFixture.publishGeneration(writers);
                f.compactor(CompactorOptions.defaults()).run();
                if (generation == 2) {
                    try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                        createScoreIndex(base);
                    }
                }
            }
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                base.compact(fileCompacting().fileCompaction().orElseThrow());
                base.checkoutLatest();
                assertThat(BaseIndexRefresh.remapPending(base))
                        .as("seed %s", seed)
                        .containsOnlyKeys("score_idx");
                long before = base.version();
                List<Long> checkedAt = new ArrayList<>();

                BaseIndexRefresh.run(base, f.uri, List.of(), () -> checkedAt.add(base.version()));

                base.checkoutLatest();
                assertThat(base.version() - before)
                        .as("the rebuild and the record's drop, seed %s", seed)
                        .isGreaterThanOrEqualTo(2);
                assertThat(checkedAt)
                        .as("one check before each commit, at the version it commits on, seed %s", seed)
                        .isEqualTo(
                                LongStream.range(before, base.version()).boxed().toList());
                assertThat(reuseRecord(base)).as("seed %s", seed).isEmpty();
            }
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aFullTextIndexIsLeftAloneWithOneWarning() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest full text seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed);
                LogCapture log = LogCapture.of(BaseIndexRefresh.class)) {
            List<ShardWriter> writers = f.openAll();
            List<UUID> built = fullTextIndexBeforeTwoMerges(f, writers, CompactorOptions.defaults());

            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThat(BaseIndexRefresh.fullTextLeftStale(base))
                        .as("the merges left rows outside it")
                        .containsExactly("name_fts");
                assertThat(segments(base, "name_fts")).as("never optimised").isEqualTo(built);
            }
            assertThat(log.messages(org.apache.logging.log4j.Level.WARN))
                    .filteredOn(m -> m.contains("full-text index name_fts"))
                    .as("warned once over two runs")
                    .hasSize(1);
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void mergedDeletesLeaveTheBaseTableThroughAnIndexOnTheKey() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest key index seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed);
                LogCapture log = LogCapture.of(BaseIndexRefresh.class)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 150, 200, "g1");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            assertThat(log.messages(org.apache.logging.log4j.Level.WARN)).isEmpty();
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                base.createIndex(
                        List.of("id"),
                        IndexType.BTREE,
                        Optional.of("id_idx"),
                        IndexParams.builder()
                                .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                                .build(),
                        true);
            }
            for (int generation = 2; generation <= 3; generation++) {
                f.randomOps(writers, 60, 200, "g" + generation);
                CompactionFixture.publishGeneration(writers);
                f.compactor(CompactorOptions.defaults()).run();
            }

            assertThat(f.baseRows())
                    .as("deletes merged through the key index, seed %s", seed)
                    .isEqualTo(f.modelRows());
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThat(BaseIndexRefresh.keyIndexes(base, List.of("id"))).containsExactly("id_idx");
            }
            assertThat(log.messages(org.apache.logging.log4j.Level.WARN))
                    .as("a single integer key is deleted by predicate: nothing to warn of")
                    .noneMatch(m -> m.contains("has an index on its key"));
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void theReuseRecordOfEachFileCompactionIsDroppedWhenNoIndexNeedsIt() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest reuse record seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 80, 200, "g1");
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run(); // one fragment: nothing for a file compaction
            for (int generation = 2; generation <= 4; generation++) {
                f.randomOps(writers, 80, 200, "g" + generation);
                CompactionFixture.publishGeneration(writers);
                long before = latestVersion(f);

                assertThat(f.compactor(fileCompacting()).run().fileCompactionRan())
                        .isTrue();

                assertThat(reuseRecordsSince(f, before))
                        .as("run %s wrote a reuse record, seed %s", generation, seed)
                        .isNotEmpty();
                try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                    assertThat(reuseRecord(base))
                            .as("no index to remap: dropped by run %s, seed %s", generation, seed)
                            .isEmpty();
                }
            }
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aReuseRecordAFullTextIndexStillNeedsIsKeptWithOneWarning() {
        long seed = System.nanoTime();
        System.out.println("BaseIndexRemapTest kept reuse record seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed);
                LogCapture log = LogCapture.of(BaseIndexRefresh.class)) {
            List<ShardWriter> writers = f.openAll();
            fullTextIndexBeforeTwoMerges(f, writers, fileCompacting());

            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThat(BaseIndexRefresh.remapPending(base)).containsOnlyKeys("name_fts");
                assertThat(reuseRecord(base))
                        .as("name_fts still reads the moved rows through it, seed %s", seed)
                        .hasValueSatisfying(fragments -> assertThat(fragments).isNotEmpty());
            }
            assertThat(log.messages(org.apache.logging.log4j.Level.WARN))
                    .filteredOn(m -> m.contains("Keeping the fragment-reuse record"))
                    .as("warned once over two runs")
                    .hasSize(1);
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(f.modelRows());
            writers.forEach(ShardWriter::close);
        }
    }

    /** As the sink's maintenance runs it with garbage collection on: remapping deferred. */
    private static CompactorOptions fileCompacting() {
        return CompactorOptions.defaults()
                .withFileCompaction(CompactionOptions.builder()
                        .withTargetRowsPerFragment(1_000_000)
                        .withDeferIndexRemap(true)
                        .build());
    }

    /**
     * Merges a first generation, builds the full-text index {@code name_fts} on the base table,
     * then merges two more generations in runs with {@code options}; returns the index's segments
     * as built.
     */
    private static List<UUID> fullTextIndexBeforeTwoMerges(
            CompactionFixture f, List<ShardWriter> writers, CompactorOptions options) {
        f.randomOps(writers, 80, 200, "g1");
        CompactionFixture.publishGeneration(writers);
        f.compactor(CompactorOptions.defaults()).run();
        List<UUID> built;
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            createFullTextIndex(base);
            built = segments(base, "name_fts");
        }
        for (int generation = 2; generation <= 3; generation++) {
            f.randomOps(writers, 80, 200, "g" + generation);
            CompactionFixture.publishGeneration(writers);
            f.compactor(options).run();
        }
        return built;
    }

    private static void createScoreIndex(Dataset base) {
        base.createIndex(
                List.of("score"),
                IndexType.BTREE,
                Optional.of("score_idx"),
                IndexParams.builder()
                        .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                        .build(),
                true);
    }

    private static void createFullTextIndex(Dataset base) {
        base.createIndex(
                List.of("name"),
                IndexType.INVERTED,
                Optional.of("name_fts"),
                IndexParams.builder()
                        .setScalarIndexParams(new InvertedIndexParams.Builder()
                                .baseTokenizer("simple")
                                .language("English")
                                .withPosition(false)
                                .maxTokenLength(40)
                                .lowerCase(true)
                                .stem(false)
                                .removeStopWords(false)
                                .asciiFolding(true)
                                .minNgramLength(3)
                                .maxNgramLength(3)
                                .prefixOnly(false)
                                .build())
                        .build(),
                true);
    }

    /** The fragments the checked-out version's fragment-reuse record lists; empty when it has none. */
    private static Optional<List<Integer>> reuseRecord(Dataset base) {
        return base.getIndexes().stream()
                .filter(i -> i.name().equals(BaseIndexRefresh.FRAGMENT_REUSE_INDEX))
                .findFirst()
                .map(i -> i.fragments().orElse(List.of()));
    }

    private static long latestVersion(CompactionFixture f) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            return base.version();
        }
    }

    /** The reuse records' fragments of each base version after {@code after} that has one. */
    private static List<List<Integer>> reuseRecordsSince(CompactionFixture f, long after) {
        List<List<Integer>> records = new ArrayList<>();
        for (long v = after + 1; v <= latestVersion(f); v++) {
            try (Dataset base = Dataset.open(
                    f.allocator, f.uri, new ReadOptions.Builder().setVersion(v).build())) {
                reuseRecord(base).ifPresent(records::add);
            }
        }
        return records;
    }

    private static List<UUID> segments(Dataset base, String name) {
        return base.getIndexes().stream()
                .filter(i -> i.name().equals(name))
                .map(Index::uuid)
                .sorted()
                .toList();
    }

    private static List<Long> idsWhere(Dataset base, String filter) {
        List<Long> ids = new ArrayList<>();
        ScanOptions options = new ScanOptions.Builder()
                .filter(filter)
                .useScalarIndex(true)
                .columns(List.of("id"))
                .build();
        try (LanceScanner scanner = base.newScan(options);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                LanceRows.all(reader.getVectorSchemaRoot()).forEach(r -> ids.add((Long) r.get("id")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        ids.sort(Long::compare);
        return ids;
    }
}
