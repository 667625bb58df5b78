package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.storage.S3Options;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SQL step of {@link MultiTaskManagerIT}: through the SQL client, an INSERT from datagen into a
 * new table of 8 buckets whose 4 writers fill both TaskManagers' slots, compaction on; then SELECTs
 * of that table and of the DataStream demo's table through the walsink SQL source.
 */
final class MultiTaskManagerSql {
    private static final int ROWS = 12_000;
    private static final int KEYS = 500;

    private MultiTaskManagerSql() {}

    static void run(StandaloneCluster cluster, Path connectorJar, Path table, Path demoTable, Map<Long, String> demo)
            throws Exception {
        String output = SqlClientScript.execute(
                cluster,
                "sql-multi-tm",
                connectorJar,
                List.of(
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
                        "  'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (ROWS - 1)
                                + "');",
                        "INSERT INTO events SELECT n % " + KEYS + ", CONCAT('e', CAST(n AS STRING)) FROM gen;",
                        "SELECT id, name FROM events /*+ OPTIONS('scan.startup-mode' = 'snapshot') */;",
                        // the DataStream demo's table, declared over the existing one
                        "CREATE TABLE demo (id BIGINT, `value` STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED)",
                        "  WITH ('connector' = 'walsink', 'path' = '" + demoTable.toUri() + "');",
                        "SELECT id AS demo_id, `value` FROM demo /*+ OPTIONS('scan.startup-mode' = 'snapshot') */;"));
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
