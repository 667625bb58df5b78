package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.table.SqlTables;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CALL lake.sys.rollback_to(...)} (or {@code `rollback`}, a reserved word) and {@code
 * rollback_to_tag}: a SELECT afterwards reads the version, writes go on.
 */
class CatalogRollbackTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aRolledBackTableReadsAsTheVersionAndWritesGoOnFromThere() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql("CREATE CATALOG lake WITH ('type' = 'walsink', 'warehouse' = '" + dir.resolve("lake") + "')");
        sql.executeSql("USE CATALOG lake");
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('buckets' ="
                + " '2', 'sink.compaction.enabled' = 'false', 'scan.startup-mode' = 'snapshot')");
        sql.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        String tagged = SqlTables.collect(sql, "CALL lake.sys.create_tag('events', 'good')")
                .get(0)
                .getField(0)
                .toString();
        long version = Long.parseLong(tagged.split(" ")[2]);
        sql.executeSql("INSERT INTO events VALUES (2, 'b2'), (4, 'd')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        sql.executeSql("INSERT INTO events VALUES (5, 'e')").await(); // published, not merged
        assertThat(select(sql)).hasSize(5);

        List<Row> printed = SqlTables.collect(sql, "CALL lake.sys.rollback_to_tag('events', 'good')");
        assertThat(printed.get(0).getField(0).toString())
                .startsWith("Rolled back events to version " + version + " as new base version ")
                .contains("2 shards reset");
        assertThat(printed).hasSize(3); // the table, then each shard
        assertThat(select(sql)).containsExactlyInAnyOrder(Row.of(1L, "a"), Row.of(2L, "b"), Row.of(3L, "c"));

        sql.executeSql("INSERT INTO events VALUES (3, 'c2'), (6, 'f')").await();
        assertThat(select(sql))
                .containsExactlyInAnyOrder(Row.of(1L, "a"), Row.of(2L, "b"), Row.of(3L, "c2"), Row.of(6L, "f"));
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");

        assertThat(SqlTables.collect(sql, "CALL lake.sys.rollback_to('events', " + version + ")")
                        .get(0)
                        .getField(0)
                        .toString())
                .startsWith("Rolled back events to version " + version);
        assertThat(select(sql)).containsExactlyInAnyOrder(Row.of(1L, "a"), Row.of(2L, "b"), Row.of(3L, "c"));

        assertThatThrownBy(() -> SqlTables.collect(sql, "CALL lake.sys.`rollback`('events', 999)"))
                .hasStackTraceContaining("has no base version 999");
        assertThatThrownBy(() -> SqlTables.collect(sql, "CALL lake.sys.rollback_to_tag('events', 'nope')"))
                .hasStackTraceContaining("has no tag 'nope'");
    }

    private static List<Row> select(StreamTableEnvironment sql) throws Exception {
        return SqlTables.collect(sql, "SELECT id, name FROM events");
    }
}
