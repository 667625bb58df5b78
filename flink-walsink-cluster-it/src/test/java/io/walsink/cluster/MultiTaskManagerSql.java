package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.storage.S3Options;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SQL step of {@link MultiTaskManagerIT}: through the SQL client, an INSERT from datagen into a
 * new table of 8 buckets whose 4 writers fill both TaskManagers' slots, compaction on; then SELECTs
 * of that table and of the DataStream demo's table through the walsink SQL source; then the catalog
 * from the connector in Flink's lib/: a table created, written, given a column, compacted by a
 * procedure and read by SQL and by LanceDB by name from the warehouse.
 */
final class MultiTaskManagerSql {
    private static final int ROWS = 12_000;
    private static final int KEYS = 500;
    private static final String CATALOG_TABLE = "items";
    private static final int ITEMS = 3_000;
    private static final int ITEM_KEYS = 100;

    private MultiTaskManagerSql() {}

    /** {@code connectorJar}: given to the SQL client with {@code -j}; null when lib/ holds it. */
    static void run(
            StandaloneCluster cluster,
            Path connectorJar,
            Path table,
            Path demoTable,
            Map<Long, String> demo,
            Path warehouse)
            throws Exception {
        List<String> statements = new ArrayList<>(List.of(
                "SET 'sql-client.execution.result-mode' = 'tableau';",
                "SET 'table.dml-sync' = 'true';",
                "SET 'execution.checkpointing.interval' = '1s';",
                // one datagen task keeps each key's order; the writers' parallelism is the table's
                "SET 'parallelism.default' = '1';",
                "CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (",
                "  'connector' = 'walsink', 'path' = '" + table.toUri() + "', 'buckets' = '8',",
                "  'sink.parallelism' = '4', 'sink.compaction.enabled' = 'true',"
                        + " 'sink.maintenance.interval' = '1s');",
                // 2,000 rows/s: the job runs long enough for checkpoints and compaction runs
                "CREATE TEMPORARY TABLE gen (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',",
                "  'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (ROWS - 1) + "');",
                "INSERT INTO events SELECT n % " + KEYS + ", CONCAT('e', CAST(n AS STRING)) FROM gen;",
                "SELECT id, name FROM events /*+ OPTIONS('scan.startup-mode' = 'snapshot') */;",
                // the DataStream demo's table, declared over the existing one
                "CREATE TABLE demo (id BIGINT, `value` STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED)",
                "  WITH ('connector' = 'walsink', 'path' = '" + demoTable.toUri() + "');",
                "SELECT id AS demo_id, `value` FROM demo /*+ OPTIONS('scan.startup-mode' = 'snapshot') */;"));
        statements.addAll(catalogStatements(warehouse));
        String output = SqlClientScript.execute(cluster, "sql-multi-tm", connectorJar, statements);
        Map<Long, String> expected = model();
        assertThat(SqlClientScript.selected(output, "id"))
                .as("rows the SELECT of the SQL table printed; output:%n%s", output)
                .isEqualTo(expected);
        assertThat(ModelCheck.committed(table.toString(), S3Options.defaults(), "name"))
                .as("the SQL table through walsink's reader")
                .isEqualTo(expected);
        assertThat(ModelCheck.lanceDb(table, "name"))
                .as("the SQL table through LanceDB")
                .isEqualTo(expected);
        assertThat(SqlClientScript.selected(output, "demo_id"))
                .as("rows the SELECT of the demo's table printed")
                .isEqualTo(demo);
        SqlClientScript.assertCompactionMerged(cluster.taskManagerLogs(), table);
        assertCatalogTable(output, warehouse);
    }

    /**
     * A catalog table through its whole SQL life: created with its options kept, written, given a
     * column, written with it, compacted by the catalog's procedure, read as one snapshot.
     */
    private static List<String> catalogStatements(Path warehouse) {
        return List.of(
                "CREATE CATALOG lake WITH ('type' = 'walsink', 'warehouse' = '" + warehouse.toUri() + "');",
                "CREATE TABLE lake.`default`." + CATALOG_TABLE
                        + " (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)",
                "  WITH ('buckets' = '4', 'scan.startup-mode' = 'snapshot');",
                "CREATE TEMPORARY TABLE items_gen (n BIGINT) WITH ('connector' = 'datagen',",
                "  'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (ITEMS - 1) + "');",
                "INSERT INTO lake.`default`." + CATALOG_TABLE + " SELECT n % " + ITEM_KEYS
                        + ", CONCAT('i', CAST(n AS STRING)) FROM items_gen;",
                "ALTER TABLE lake.`default`." + CATALOG_TABLE + " ADD note STRING;",
                "INSERT INTO lake.`default`." + CATALOG_TABLE + " VALUES (CAST(1 AS BIGINT), 'one', 'noted');",
                "CALL lake.sys.compact('" + CATALOG_TABLE + "');",
                "SELECT id AS item_id, name, note FROM lake.`default`." + CATALOG_TABLE + ";");
    }

    /** The catalog table's rows, key to (name, note), as the SQL client printed them and LanceDB read them. */
    private static void assertCatalogTable(String output, Path warehouse) throws Exception {
        Map<Long, List<String>> expected = new TreeMap<>();
        for (int n = 0; n < ITEMS; n++) {
            expected.put((long) (n % ITEM_KEYS), Arrays.asList("i" + n, null));
        }
        expected.put(1L, List.of("one", "noted"));
        Map<Long, List<String>> printed = new TreeMap<>();
        SqlClientScript.selectedRows(output, "item_id")
                .forEach((id, cells) -> printed.put(
                        id,
                        cells.subList(0, 2).stream()
                                .map(c -> c.equals("<NULL>") ? null : c)
                                .toList()));
        assertThat(printed)
                .as("the catalog table's rows the SELECT printed; output:%n%s", output)
                .isEqualTo(expected);
        LanceDb.Result read = LanceDb.readByName(
                        warehouse,
                        CATALOG_TABLE,
                        List.of(new LanceDb.Query("all", null, List.of("id", "name", "note"), null)))
                .get("all");
        assertThat(read.error())
                .as("LanceDB's error reading the catalog table by name")
                .isNull();
        Map<Long, List<String>> lanceDb = new TreeMap<>();
        for (List<String> row : read.rows()) {
            List<String> rest = new ArrayList<>(row.subList(1, 3));
            rest.replaceAll(v -> "null".equals(v) ? null : v);
            assertThat(lanceDb.put(Long.parseLong(row.get(0)), rest))
                    .as("key %s read twice by LanceDB", row.get(0))
                    .isNull();
        }
        assertThat(lanceDb)
                .as("the catalog table through LanceDB, opened by name from the warehouse")
                .isEqualTo(expected);
    }

    /** The last {@code n} written to each key. */
    private static Map<Long, String> model() {
        Map<Long, String> rows = new TreeMap<>();
        for (int n = 0; n < ROWS; n++) {
            rows.put((long) (n % KEYS), "e" + n);
        }
        return rows;
    }
}
