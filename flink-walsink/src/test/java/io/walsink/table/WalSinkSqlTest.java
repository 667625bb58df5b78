package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** CREATE TABLE ... WITH ('connector' = 'walsink'), INSERT and SELECT on a MiniCluster. */
class WalSinkSqlTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void insertValuesCreatesTheTableAndUpsertsByKey() throws Exception {
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "t", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", path, "buckets", "4"));
        sql.executeSql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        sql.executeSql("INSERT INTO t VALUES (2, 'b2'), (4, 'd')").await(); // the same key again: an update

        assertThat(SqlTables.collect(sql, "SELECT id, name FROM t"))
                .containsExactlyInAnyOrder(Row.of(1L, "a"), Row.of(2L, "b2"), Row.of(3L, "c"), Row.of(4L, "d"));
        assertThat(SqlTables.read(path, ReadMode.COMMITTED))
                .containsExactlyInAnyOrder(
                        Map.of("id", 1L, "name", "a"),
                        Map.of("id", 2L, "name", "b2"),
                        Map.of("id", 3L, "name", "c"),
                        Map.of("id", 4L, "name", "d"));
    }

    @Test
    void theScanHasOneSplitPerBucket() throws Exception {
        Path path = dir.resolve("split");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "split", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", path, "buckets", "4"));
        sql.executeSql("INSERT INTO split VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')")
                .await();
        io.walsink.table.scan.TableScan scan = new io.walsink.table.scan.TableScan(
                path.toString(),
                io.walsink.storage.S3Options.defaults(),
                Map.of(),
                io.walsink.format.wal.WalSchemaProfile.SPEC,
                io.walsink.read.ReadMode.COMMITTED,
                List.of("id", "name"),
                -1);
        assertThat(scan.bucketSplits(scan.pin())).hasSize(4).allSatisfy(s -> assertThat(s.bucket())
                .isNotNull());
        assertThat(SqlTables.collect(sql, "SELECT id FROM split")).hasSize(5);
    }

    @Test
    void withoutPrimaryKeyEveryRowIsKept() throws Exception {
        Path path = dir.resolve("log");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("log", "id BIGINT, name STRING", path, "buckets", "1"));
        sql.executeSql("INSERT INTO log VALUES (1, 'a'), (1, 'b'), (2, 'c'), (1, 'a')")
                .await();
        assertThat(SqlTables.collect(sql, "SELECT id, name FROM log"))
                .hasSize(4)
                .extracting(r -> r.getField(1))
                .containsExactlyInAnyOrder("a", "b", "c", "a");
    }

    @Test
    void projectionAndLimitArePushedIntoTheScan() throws Exception {
        Path path = dir.resolve("p");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "p", "id BIGINT, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED", path, "buckets", "2"));
        sql.executeSql("INSERT INTO p VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
                .await();

        String plan = sql.explainSql("SELECT name FROM p LIMIT 2");
        assertThat(plan).contains("project=[name]").contains("limit=[2]");
        assertThat(SqlTables.collect(sql, "SELECT name FROM p LIMIT 2")).hasSize(2);
        assertThat(SqlTables.collect(sql, "SELECT score, id FROM p WHERE score > 15"))
                .containsExactlyInAnyOrder(Row.of(20, 2L), Row.of(30, 3L));
    }

    @Test
    void insertFromDatagenLandsEveryRow() throws Exception {
        Path path = dir.resolve("g");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql("CREATE TABLE gen (id BIGINT, name STRING) WITH ('connector' = 'datagen',"
                + " 'number-of-rows' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
                + " 'fields.id.end' = '2000', 'fields.name.length' = '8')");
        sql.executeSql(SqlTables.walsinkTable(
                "g",
                "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED",
                path,
                "buckets",
                "4",
                "sink.memtable.max-rows",
                "300"));
        sql.executeSql("INSERT INTO g SELECT id, name FROM gen").await();

        List<Row> rows = SqlTables.collect(sql, "SELECT id, name FROM g");
        assertThat(rows).hasSize(2000);
        assertThat(rows.stream().map(r -> (Long) r.getField(0)).sorted().toList())
                .isEqualTo(
                        java.util.stream.LongStream.rangeClosed(1, 2000).boxed().toList());
        List<Map<String, Object>> outside = SqlTables.read(path, ReadMode.COMMITTED);
        assertThat(outside).hasSize(2000);
        assertThat(rows.stream()
                        .map(r -> Map.<String, Object>of("id", r.getField(0), "name", r.getField(1)))
                        .toList())
                .containsExactlyInAnyOrderElementsOf(outside);
    }
}
