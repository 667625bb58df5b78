package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.TableLayout;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceRows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL table without a PRIMARY KEY and {@code 'buckets' = '4'}: rows spread round-robin over four
 * shards, compacted on walsink's row key, which SQL neither shows nor needs.
 */
class AppendTableSqlTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(4); // the continuous read holds two while an INSERT runs

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void anAppendTableSpreadsItsRowsOverItsBucketsAndTheScanReadsThemAll() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        Path path = dir.resolve("t");
        sql.executeSql(SqlTables.walsinkTable("t", "id BIGINT, name STRING", path, "buckets", "4"));
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            values.add("(" + i % 6 + ", 'n" + i % 6 + "')"); // every row twice
        }
        sql.executeSql("INSERT INTO t VALUES " + String.join(", ", values)).await();

        assertThat(TableLayout.shards(new LocalObjectStore(path))).hasSize(4);
        Map<Long, Long> expected = new TreeMap<>();
        for (long id = 0; id < 6; id++) {
            expected.put(id, 2L);
        }
        Map<Long, Long> read = SqlTables.read(path, io.walsink.read.ReadMode.COMMITTED).stream()
                .collect(Collectors.groupingBy(r -> (Long) r.get("id"), TreeMap::new, Collectors.counting()));
        assertThat(read).isEqualTo(expected);
        List<Row> scanned = SqlTables.collect(sql, "SELECT id, name FROM t");
        Map<Long, Long> selected = scanned.stream()
                .collect(Collectors.groupingBy(r -> (Long) r.getField(0), TreeMap::new, Collectors.counting()));
        assertThat(selected).isEqualTo(expected);

        // The table has walsink's row key, which SQL does not show; compacted, the base table holds every row
        // and the scan reads each once.
        assertThat(LanceTables.open(path.toString(), Map.of(), true).primaryKey())
                .containsExactly(AppendRowKey.COLUMN);
        Compactor.compact(path.toString(), null, CompactorOptions.defaults());
        try (RootAllocator allocator = new RootAllocator()) {
            assertThat(LanceRows.scan(allocator, path.toString(), Map.of())).hasSize(12);
        }
        List<Row> all = SqlTables.collect(sql, "SELECT * FROM t");
        assertThat(all).allMatch(r -> r.getArity() == 2);
        Map<Long, Long> compacted = all.stream()
                .collect(Collectors.groupingBy(r -> (Long) r.getField(0), TreeMap::new, Collectors.counting()));
        assertThat(compacted).isEqualTo(expected);

        // The continuous read: the snapshot of all four shards, then rows published later, each once.
        sql.executeSql(SqlTables.walsinkTable(
                "tail",
                "id BIGINT, name STRING",
                path,
                "scan.startup-mode",
                "initial",
                "scan.discovery-interval",
                "100ms"));
        TableResult following = sql.executeSql("SELECT id, name FROM tail");
        List<Row> followed = new ArrayList<>();
        try (CloseableIterator<Row> rows = following.collect()) {
            while (followed.size() < 12) {
                followed.add(rows.next());
            }
            sql.executeSql("INSERT INTO t VALUES (6, 'n6'), (7, 'n7'), (6, 'n6'), (8, 'n8')")
                    .await();
            while (followed.size() < 16) {
                followed.add(rows.next());
            }
        }
        expected.put(6L, 2L);
        expected.put(7L, 1L);
        expected.put(8L, 1L);
        Map<Long, Long> streamed = followed.stream()
                .peek(r -> assertThat(r.getKind()).isEqualTo(RowKind.INSERT))
                .collect(Collectors.groupingBy(r -> (Long) r.getField(0), TreeMap::new, Collectors.counting()));
        assertThat(streamed).isEqualTo(expected);
    }

    @Test
    @Timeout(120)
    void sinkBucketColumnBucketsAnAppendTableOnThatColumn() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        Path path = dir.resolve("c");
        sql.executeSql(SqlTables.walsinkTable(
                "c", "id BIGINT, name STRING", path, "buckets", "2", "sink.bucket-column", "name"));
        sql.executeSql("INSERT INTO c VALUES (1, 'a'), (1, 'a'), (2, 'b')").await();

        TableInfo table = LanceTables.open(path.toString(), Map.of(), true);
        assertThat(table.primaryKey()).isEmpty();
        assertThat(table.sharding().sharding()).isEqualTo(TableSharding.bucket("name", 2));
        assertThat(SqlTables.read(path, io.walsink.read.ReadMode.COMMITTED)).hasSize(3);
    }
}
