package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.read.ReadMode;
import io.walsink.table.SqlTables;
import io.walsink.testing.LanceDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE CATALOG ... ('type' = 'walsink'): tables created, listed, written, read and dropped by name;
 * databases as sub-folders of the warehouse, where LanceDB connects.
 */
class WalSinkCatalogTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void aTableCreatedInTheCatalogIsWrittenAndReadByNameWithoutRepeatingItsOptions() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).isEmpty();

        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '4', 'scan.startup-mode' = 'snapshot')");
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).containsExactly(Row.of("events"));
        assertThat(warehouse.resolve("events.lance")).isDirectory();

        sql.executeSql("INSERT INTO events VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5)")
                .await();
        sql.executeSql("INSERT INTO events VALUES (2, 'b2', 20.5)").await(); // the same key: an update
        List<Row> expected = List.of(Row.of(1L, "a", 1.5), Row.of(2L, "b2", 20.5), Row.of(3L, "c", 3.5));
        assertThat(SqlTables.collect(sql, "SELECT id, name, score FROM events"))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(SqlTables.read(warehouse.resolve("events.lance"), ReadMode.COMMITTED))
                .hasSize(3);

        ResolvedSchema schema = sql.from("events").getResolvedSchema();
        assertThat(schema.getColumnNames()).containsExactly("id", "name", "score");
        assertThat(schema.getPrimaryKey().orElseThrow().getColumns()).containsExactly("id");

        Map<String, LanceDb.Result> lancedb = LanceDb.readByName(
                warehouse, "events", List.of(LanceDb.Query.of("all", null, List.of("id", "name", "score"))));
        assertThat(lancedb.get("tableNames").rows()).containsExactly(List.of("events"));
        assertThat(lancedb.get("all").rows())
                .as("LanceDB's default read of the table it opens by name")
                .containsExactlyInAnyOrder(
                        List.of("1", "a", "1.5"), List.of("2", "b2", "20.5"), List.of("3", "c", "3.5"));

        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE events (id BIGINT) WITH ('buckets' = '1')"))
                .hasStackTraceContaining("already exists");
        sql.executeSql("CREATE TABLE IF NOT EXISTS events (id BIGINT) WITH ('buckets' = '1')");
        assertThat(SqlTables.collect(sql, "SELECT id, name, score FROM events"))
                .containsExactlyInAnyOrderElementsOf(expected);

        sql.executeSql("DROP TABLE events");
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).isEmpty();
        assertThat(warehouse.resolve("events.lance")).doesNotExist();
        assertThatThrownBy(() -> sql.executeSql("DROP TABLE events")).hasStackTraceContaining("events");
        sql.executeSql("DROP TABLE IF EXISTS events");
    }

    /** A table written by a job outside the catalog, keyed on {@code id}. */
    private static void writeOutside(Path table, String columns, String values) throws Exception {
        StreamTableEnvironment outside = SqlTables.env();
        outside.executeSql(
                SqlTables.walsinkTable("t", columns + ", PRIMARY KEY (id) NOT ENFORCED", table, "buckets", "2"));
        outside.executeSql("INSERT INTO t VALUES " + values).await();
    }

    @Test
    void aWalsinkTableWrittenOutsideTheCatalogIsListedWithItsSchemaAndKey() throws Exception {
        Path warehouse = dir.resolve("lake");
        writeOutside(warehouse.resolve("scores.lance"), "id BIGINT, player STRING", "(7, 'x'), (8, 'y')");
        Files.createDirectories(warehouse.resolve("notes")); // a folder that is not a table

        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).containsExactly(Row.of("scores"));
        assertThat(sql.from("scores")
                        .getResolvedSchema()
                        .getPrimaryKey()
                        .orElseThrow()
                        .getColumns())
                .containsExactly("id");
        assertThat(SqlTables.collect(
                        sql, "SELECT id, player FROM scores /*+ OPTIONS('scan.startup-mode' = 'snapshot') */"))
                .containsExactlyInAnyOrder(Row.of(7L, "x"), Row.of(8L, "y"));
    }

    @Test
    void badDefinitionsFailNamingTheProblemBeforeAnythingIsWritten() throws Exception {
        Path warehouse = dir.resolve("lake");
        Files.createDirectories(warehouse);
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        String columns = "(id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)";

        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE t " + columns + " WITH ('buckets' = '2', 'path' = '"
                        + dir.resolve("elsewhere") + "')"))
                .hasStackTraceContaining("remove the 'path' option");
        assertThatThrownBy(() -> sql.executeSql(
                        "CREATE TABLE t " + columns + " WITH ('buckets' = '2', 'sink.flush-interval' = '0 ms')"))
                .hasStackTraceContaining("'sink.flush-interval': must be positive");
        assertThatThrownBy(
                        () -> sql.executeSql("CREATE TABLE t " + columns + " WITH ('buckets' = '2', 'no.such' = 'x')"))
                .hasStackTraceContaining("no.such");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE t " + columns)).hasStackTraceContaining("'buckets'");
        assertThatThrownBy(() -> sql.executeSql(
                        "CREATE TABLE t " + columns + " WITH ('buckets' = '2'," + " 's3.region' = 'eu-west-1')"))
                .hasStackTraceContaining("set it in CREATE CATALOG");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE `a/b` " + columns + " WITH ('buckets' = '2')"))
                .hasStackTraceContaining("cannot name a table");

        String keyed = "(id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('buckets' = '1')";

        assertThatThrownBy(() -> sql.executeSql("CREATE DATABASE `a/b`"))
                .hasStackTraceContaining("'a/b' cannot name a database")
                .hasStackTraceContaining("holds a path separator");
        assertThatThrownBy(() -> sql.executeSql("CREATE DATABASE `..`"))
                .hasStackTraceContaining("would name a folder outside its own");
        assertThatThrownBy(() -> sql.executeSql("CREATE DATABASE `x.lance`"))
                .hasStackTraceContaining("is not made of letters, digits, '_' and '-'");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE `..` " + keyed))
                .hasStackTraceContaining("'..' cannot name a table")
                .hasStackTraceContaining("would name a folder outside its own");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE `x/../y` " + keyed))
                .hasStackTraceContaining("holds a path separator");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE `a\\b` " + keyed))
                .hasStackTraceContaining("holds a path separator");
        assertThatThrownBy(() -> sql.getCatalog("lake")
                        .orElseThrow()
                        .createDatabase("", new CatalogDatabaseImpl(Map.of(), null), false))
                .hasMessageContaining("'' cannot name a database of the walsink catalog: it is empty");
        assertThatThrownBy(() -> sql.executeSql("USE `../lake`")).hasStackTraceContaining("does not exist");
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE `../lake`.t " + keyed))
                .hasStackTraceContaining("does not exist");

        try (Stream<Path> written = Files.list(warehouse)) {
            assertThat(written).as("nothing written by refused statements").isEmpty();
        }
        assertThat(dir.resolve("elsewhere")).doesNotExist();
        try (Stream<Path> written = Files.list(dir)) {
            assertThat(written).as("nothing written beside the warehouse").containsExactly(warehouse);
        }
    }

    @Test
    void proceduresCompactCollectAndTagATableByName() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2', 'sink.compaction.enabled' = 'false')");
        sql.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        LanceDb.Query base = new LanceDb.Query("base", null, List.of("id", "name"), false);
        assertThat(LanceDb.readByName(warehouse, "events", List.of(base))
                        .get("base")
                        .rows())
                .as("the base table before compaction")
                .isEmpty();

        List<Row> compacted = SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        assertThat(compacted.get(compacted.size() - 1).getField(0).toString())
                .startsWith("Compacted events: ")
                .doesNotContain(": 0 generations");
        assertThat(LanceDb.readByName(warehouse, "events", List.of(base))
                        .get("base")
                        .rows())
                .as("LanceDB's read of the base table alone after the procedure")
                .containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b"), List.of("3", "c"));

        String tagged = SqlTables.collect(sql, "CALL lake.sys.create_tag('events', 'first')")
                .get(0)
                .getField(0)
                .toString();
        assertThat(tagged).startsWith("Tagged version ").endsWith(" of events as 'first'");
        String version = tagged.split(" ")[2];
        assertThat(SqlTables.collect(sql, "CALL lake.sys.list_tags('events')"))
                .containsExactly(Row.of("first = version " + version));
        assertThat(SqlTables.collect(sql, "CALL lake.sys.gc('events', '1 h')")
                        .get(0)
                        .getField(0)
                        .toString())
                .startsWith("Removed from events (retention PT1H");
        assertThat(SqlTables.collect(sql, "CALL lake.sys.delete_tag('events', 'first')"))
                .containsExactly(Row.of("Deleted tag 'first' of events (version " + version + ")"));
        assertThat(SqlTables.collect(sql, "CALL lake.sys.list_tags('events')")).isEmpty();

        assertThatThrownBy(() -> SqlTables.collect(sql, "CALL lake.sys.compact('missing')"))
                .hasStackTraceContaining("There is no table 'missing'");
        assertThatThrownBy(() -> SqlTables.collect(sql, "CALL lake.sys.gc('events', '0 s')"))
                .hasStackTraceContaining("the retention must be positive");
    }

    @Test
    void aDatabaseIsTheSubFolderLanceDbConnectsToAndDropsOnlyWithCascade() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        assertThat(SqlTables.collect(sql, "SHOW DATABASES")).containsExactly(Row.of("default"));

        sql.executeSql("CREATE DATABASE analytics COMMENT 'for reports' WITH ('owner' = 'ops')");
        assertThat(SqlTables.collect(sql, "SHOW DATABASES"))
                .containsExactlyInAnyOrder(Row.of("default"), Row.of("analytics"));
        Catalog lake = sql.getCatalog("lake").orElseThrow();
        CatalogDatabase analytics = lake.getDatabase("analytics");
        assertThat(analytics.getComment()).isEqualTo("for reports");
        assertThat(analytics.getProperties()).isEqualTo(Map.of("owner", "ops"));
        assertThatThrownBy(() -> sql.executeSql("CREATE DATABASE analytics")).hasStackTraceContaining("already exists");
        sql.executeSql("CREATE DATABASE IF NOT EXISTS analytics");

        sql.executeSql("USE analytics");
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2', 'sink.compaction.enabled' = 'false')");
        assertThat(warehouse.resolve("analytics").resolve("events.lance")).isDirectory();
        sql.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b')").await();
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).containsExactly(Row.of("events"));
        assertThatThrownBy(() -> sql.executeSql("DROP DATABASE `default`")).hasStackTraceContaining("is the warehouse");
        sql.executeSql("USE `default`");
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).isEmpty();
        List<Row> rows = List.of(Row.of(1L, "a"), Row.of(2L, "b"));
        assertThat(SqlTables.collect(
                        sql, "SELECT id, name FROM analytics.events /*+ OPTIONS('scan.startup-mode' = 'snapshot') */"))
                .containsExactlyInAnyOrderElementsOf(rows);
        List<Row> compacted = SqlTables.collect(sql, "CALL lake.sys.compact('analytics.events')");
        assertThat(compacted.get(compacted.size() - 1).getField(0).toString())
                .startsWith("Compacted analytics.events: ");

        Map<String, LanceDb.Result> lancedb = LanceDb.readByName(
                warehouse.resolve("analytics"),
                "events",
                List.of(
                        LanceDb.Query.of("all", null, List.of("id", "name")),
                        new LanceDb.Query("base", null, List.of("id", "name"), false)));
        assertThat(lancedb.get("tableNames").rows()).containsExactly(List.of("events"));
        assertThat(lancedb.get("all").rows()).containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b"));
        assertThat(lancedb.get("base").rows())
                .as("the procedure compacted the table in the database")
                .containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b"));

        assertThatThrownBy(() -> sql.executeSql("DROP DATABASE analytics")).hasStackTraceContaining("is not empty");
        assertThat(warehouse.resolve("analytics").resolve("events.lance")).isDirectory();
        assertThatThrownBy(() -> sql.executeSql("CREATE DATABASE sys")).hasStackTraceContaining("procedures");
        sql.executeSql("DROP DATABASE analytics CASCADE");
        assertThat(warehouse.resolve("analytics")).doesNotExist();
        assertThat(SqlTables.collect(sql, "SHOW DATABASES")).containsExactly(Row.of("default"));
        sql.executeSql("DROP DATABASE IF EXISTS analytics");

        // A folder holding a Lance table (as LanceDB's connect(folder).createTable leaves it) is a database too.
        writeOutside(warehouse.resolve("shop/orders.lance"), "id BIGINT", "(7)");
        Files.createDirectories(warehouse.resolve("notes")); // neither marked nor holding a table
        assertThat(SqlTables.collect(sql, "SHOW DATABASES"))
                .containsExactlyInAnyOrder(Row.of("default"), Row.of("shop"));
        assertThat(SqlTables.collect(sql, "SHOW TABLES FROM shop")).containsExactly(Row.of("orders"));
    }
}
