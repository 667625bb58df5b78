package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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

    private TableInfo table;
    private TableContext context;
    private Random random;
    /** id -> name as written; deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    @RepeatedTest(3)
    void restoredBucketSplitsEmitThePinnedSnapshotAcrossACompaction() throws Exception {
        long seed = System.nanoTime();
        System.out.println("TableScanAcrossCompactionTest seed " + seed);
        random = new Random(seed);
        String uri = dir.resolve("t").toString();
        table = LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        context = new TableContext(
                store, table, Map.of(), WalSchemaProfile.SPEC, ShardWriterConfig.defaults(), allocator);
        List<ShardWriter> writers = openAll();
        writeAndPublish(writers, "g1");
        writeAndPublish(writers, "g2");
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

        writeAndPublish(writers, "g3");
        int merged = new Compactor(store, uri, Map.of(), allocator, CompactorOptions.defaults())
                .run()
                .mergedGenerations();
        writers.forEach(ShardWriter::close);
        writers = openAll(); // a claim drops the merged SSTables from the manifest
        writeAndPublish(writers, "g4");
        writers.forEach(ShardWriter::close);

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

    private List<ShardWriter> openAll() {
        List<ShardWriter> writers = new ArrayList<>();
        for (int b = 0; b < BUCKETS; b++) {
            writers.add(ShardOpener.open(
                    context,
                    ShardIds.bucket(b),
                    b,
                    ShardPlacement.bucket(table.sharding().specId(), b)));
        }
        return writers;
    }

    /** Random upserts and deletes, each to its bucket's writer, then one published generation per writer. */
    private void writeAndPublish(List<ShardWriter> writers, String tag) {
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(TableScanRestoreTest.TABLE, allocator)) {
            for (int i = 0; i < 60; i++) {
                long id = random.nextInt(KEYS);
                boolean delete = random.nextInt(10) < 3;
                String name = tag + "-" + i;
                ((BigIntVector) rows.getVector(0)).setSafe(0, id);
                ((VarCharVector) rows.getVector(1)).setSafe(0, name.getBytes(StandardCharsets.UTF_8));
                rows.setRowCount(1);
                writers.get(BucketHash.bucketOf(BucketHash.hashLong(id), BUCKETS))
                        .write(rows, 0, delete);
                if (delete) {
                    model.remove(id);
                } else {
                    model.put(id, name);
                }
            }
        }
        writers.forEach(SyncShardDriver::flushAndPublishAll);
    }

    private List<String> modelRows() {
        return model.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList();
    }
}
