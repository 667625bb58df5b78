package io.walsink.table.scan;

import static io.walsink.table.scan.TableScanRestoreTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.S3Options;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with many base fragments and two buckets is scanned in more splits than buckets (groups
 * of base fragments, then each bucket's unmerged rows), and those splits read by several readers,
 * or by a SQL SELECT at parallelism 3, give exactly the table: no key's older base row next to
 * its newer unmerged row or tombstone.
 */
class TableScanFragmentSplitsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(3);

    private static final int BUCKETS = 2;
    private static final int FRAGMENTS = 6;
    private static final int PER_FRAGMENT = 50;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    /** id -> name; deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    private long seed;

    /** Base ids 0..299 in six fragments, then seeded upserts and deletes over ids 0..349 in every bucket's shard. */
    private String table(ReadMode tail) {
        seed = System.nanoTime();
        System.out.println("TableScanFragmentSplitsTest seed " + seed);
        Random random = new Random(seed);
        String uri = dir.resolve("t").toString();
        LanceTables.create(
                uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        MemWalTable table =
                new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        for (int f = 0; f < FRAGMENTS; f++) {
            List<RowOp> ops = new ArrayList<>();
            for (long id = (long) f * PER_FRAGMENT; id < (long) (f + 1) * PER_FRAGMENT; id++) {
                ops.add(put(id, "base-" + id));
                model.put(id, "base-" + id);
            }
            table.writeBase(ops);
        }
        try (BucketShardWriters writers = new BucketShardWriters(uri, allocator)) {
            writers.writeRandomAndPublish(random, 80, 350, "g1", model);
            if (tail == ReadMode.LATEST) {
                for (int i = 0; i < 20; i++) {
                    long id = random.nextInt(350);
                    boolean delete = random.nextBoolean();
                    writers.write(id, "wal-" + i, delete);
                    if (delete) {
                        model.remove(id);
                    } else {
                        model.put(id, "wal-" + i);
                    }
                }
                writers.appendToWal();
            }
        }
        return uri;
    }

    private List<String> modelRows() {
        return model.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList();
    }

    @Test
    void splitsOfBaseFragmentsReadByThreeReadersGiveTheTable() throws Exception {
        String uri = table(ReadMode.LATEST);
        TableScan scan = new TableScan(
                uri,
                S3Options.defaults(),
                Map.of(),
                WalSchemaProfile.SPEC,
                ReadMode.LATEST,
                List.of("id", "name"),
                -1,
                2 * PER_FRAGMENT,
                null,
                null);
        ScanHarness harness = new ScanHarness(scan);
        List<TableScanSplit> splits = harness.allSplits();
        assertThat(splits)
                .as("three groups of two fragments, then one split per bucket")
                .extracting(TableScanSplit::splitId)
                .containsExactly("base-0", "base-1", "base-2", "unmerged-0", "unmerged-1");
        List<String> emitted = new ArrayList<>();
        for (int reader = 0; reader < 3; reader++) {
            List<TableScanSplit> mine = new ArrayList<>();
            for (int i = reader; i < splits.size(); i += 3) {
                mine.add(splits.get(i));
            }
            try (SourceReader<RowData, TableScanSplit> r = harness.reader(mine)) {
                emitted.addAll(TableScanRestoreTest.rows(ScanHarness.poll(r, -1)));
            }
        }
        assertThat(emitted).as("seed %s", seed).containsExactlyInAnyOrderElementsOf(modelRows());
    }

    @Test
    void aSqlScanAtParallelismThreeEqualsTheModel() throws Exception {
        String uri = table(ReadMode.COMMITTED);
        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", "200ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + uri + "', 'scan.startup-mode' = 'snapshot', 'scan.split.base-rows' = '"
                + PER_FRAGMENT + "')");
        List<String> emitted = new ArrayList<>();
        try (CloseableIterator<Row> rows =
                sql.executeSql("SELECT id, name FROM t").collect()) {
            rows.forEachRemaining(r -> emitted.add(r.getField(0) + "=" + r.getField(1)));
        }
        assertThat(emitted).as("seed %s", seed).containsExactlyInAnyOrderElementsOf(modelRows());
    }
}
