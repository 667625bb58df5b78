package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.TableLayout;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A SQL table without a PRIMARY KEY and {@code 'buckets' = '4'}: rows spread round-robin over four shards. */
class AppendTableSqlTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
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
    }
}
