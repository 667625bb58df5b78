package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full-text SELECT ({@code scan.full-text.*}) over a table with a maintained INVERTED index:
 * exactly the live rows whose newest text matches, after a second INSERT rewrote matching rows into
 * non-matching ones and back; the best few in a streaming job too (the read is bounded).
 */
class WalSinkSqlFullTextTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS = "id BIGINT, body STRING, PRIMARY KEY (id) NOT ENFORCED";

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aFullTextSelectReturnsTheLiveRowsWhoseNewestTextMatches() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("WalSinkSqlFullTextTest seed " + seed);
        Random random = new Random(seed);
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "docs",
                COLUMNS,
                dir.resolve("docs"),
                "buckets",
                "2",
                "index.body_idx.column",
                "body",
                "index.body_idx.type",
                "INVERTED"));
        Map<Long, String> model = new TreeMap<>();
        List<String> first = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            first.add(row(model, id, random.nextInt(3) == 0 ? "a striped zebra " + id : "a grey horse " + id));
        }
        sql.executeSql("INSERT INTO docs VALUES " + String.join(", ", first)).await();
        List<String> second = new ArrayList<>();
        for (long id = 0; id < 300; id += 1 + random.nextInt(5)) {
            second.add(row(model, id, model.get(id).contains("zebra") ? "now a horse " + id : "now a zebra " + id));
        }
        sql.executeSql("INSERT INTO docs VALUES " + String.join(", ", second)).await();

        Set<Long> zebras = model.entrySet().stream()
                .filter(e -> e.getValue().contains("zebra"))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<Long> found = new TreeSet<>();
        for (Row r : SqlTables.collect(
                sql,
                "SELECT id, body FROM docs /*+ OPTIONS('scan.full-text.column' = 'body',"
                        + " 'scan.full-text.query' = 'zebra', 'scan.full-text.limit' = '1000') */")) {
            long id = (Long) r.getField(0);
            assertThat(r.getField(1)).isEqualTo(model.get(id));
            found.add(id);
        }
        assertThat(found).as("seed %s", seed).isEqualTo(zebras);

        List<Row> best = SqlTables.collect(
                sql,
                "SELECT id FROM docs /*+ OPTIONS('scan.full-text.column' = 'body', 'scan.full-text.query' = 'zebra',"
                        + " 'scan.full-text.limit' = '3', 'scan.startup-mode' = 'initial') */");
        assertThat(best).hasSize(3);
        assertThat(zebras)
                .containsAll(best.stream().map(r -> (Long) r.getField(0)).toList());
    }

    @Test
    void aFullTextSelectWithoutAnIndexOrWithHalfItsOptionsIsRefusedByName() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("plain", COLUMNS, dir.resolve("plain"), "buckets", "1"));
        sql.executeSql("INSERT INTO plain VALUES (1, 'zebra')").await();
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM plain /*+ OPTIONS('scan.full-text.column' = 'body',"
                        + " 'scan.full-text.query' = 'zebra') */"))
                .hasStackTraceContaining("needs a maintained INVERTED index on column 'body'");
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM plain /*+ OPTIONS('scan.full-text.query' = 'zebra') */"))
                .hasStackTraceContaining("needs both 'scan.full-text.column' and 'scan.full-text.query'");
    }

    private static String row(Map<Long, String> model, long id, String body) {
        model.put(id, body);
        return "(" + id + ", '" + body + "')";
    }
}
