package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bucket-sharded table written by the shard engine: the scan's bucket splits are checkpointed
 * after a random number of rows, then the writers keep writing, the compactor merges every
 * published generation into the base table and the writers drop them from their manifests; the
 * restored splits together with the first attempt emit exactly the table at the pin.
 */
class TableScanAcrossCompactionTest {
    private static final int BUCKETS = 4;
    private static final int KEYS = 80;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private Random random;
    private BucketShardWriters writers;
    /** id -> name as written; deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    @RepeatedTest(3)
    void restoredBucketSplitsEmitThePinnedSnapshotAcrossACompaction() throws Exception {
        long seed = System.nanoTime();
        System.out.println("TableScanAcrossCompactionTest seed " + seed);
        random = new Random(seed);
        String uri = dir.resolve("t").toString();
        LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        writers = new BucketShardWriters(uri, allocator);
        writers.writeRandomAndPublish(random, 60, KEYS, "g1", model);
        writers.writeRandomAndPublish(random, 60, KEYS, "g2", model);
        List<String> atPin = modelRows();

        ScanHarness harness = new ScanHarness(TableScanRestoreTest.scan(uri, ReadMode.COMMITTED));
        List<TableScanSplit> splits = harness.allSplits();
        assertThat(splits).as("one split per bucket").hasSize(BUCKETS);
        int before = random.nextInt(atPin.size() + 1);
        List<String> emitted = new ArrayList<>();
        List<TableScanSplit> checkpoint;
        try (SourceReader<RowData, TableScanSplit> first = harness.reader(splits)) {
            emitted.addAll(TableScanRestoreTest.rows(ScanHarness.poll(first, before)));
            checkpoint = harness.checkpoint(first, 1);
        }

        writers.writeRandomAndPublish(random, 60, KEYS, "g3", model);
        int merged = new TableCompaction(
                        new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()),
                        allocator,
                        CompactorOptions.defaults())
                .run()
                .mergedGenerations();
        writers.reopen(); // a claim drops the merged SSTables from the manifest
        writers.writeRandomAndPublish(random, 60, KEYS, "g4", model);
        writers.close();

        try (SourceReader<RowData, TableScanSplit> restored = harness.reader(checkpoint)) {
            emitted.addAll(TableScanRestoreTest.rows(ScanHarness.poll(restored, -1)));
        }
        assertThat(merged)
                .as("the compaction merged generations, seed %s", seed)
                .isPositive();
        assertThat(modelRows())
                .as("the table changed after the pin, seed %s", seed)
                .isNotEqualTo(atPin);
        assertThat(emitted)
                .as("%s rows before the checkpoint, seed %s", before, seed)
                .containsExactlyInAnyOrderElementsOf(atPin);
    }

    private List<String> modelRows() {
        return model.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList();
    }
}
