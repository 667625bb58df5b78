package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sql-client.sh -j flink-sql-connector-walsink.jar -f script.sql}: CREATE TABLE with
 * {@code 'connector' = 'walsink'}, INSERT from VALUES and from datagen (synchronously, the last one
 * with compaction and garbage collection in the sink), SELECT back, on the cluster; the rows
 * printed must be what the inserts leave.
 */
final class SqlClientScript {
    private static final int GENERATED = 2_000;
    private static final int GENERATED_KEYS = 100;
    private static final int MAINTAINED = 3_000;
    private static final int MAINTAINED_KEYS = 50;

    private SqlClientScript() {}

    static void run(StandaloneCluster cluster, Path table, Path connectorJar) throws Exception {
        String output = execute(
                cluster,
                "sql-client",
                connectorJar,
                List.of(
                        "SET 'sql-client.execution.result-mode' = 'tableau';",
                        "SET 'table.dml-sync' = 'true';",
                        "SET 'execution.checkpointing.interval' = '1s';",
                        "CREATE TABLE scores (id BIGINT, name STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH (",
                        "  'connector' = 'walsink', 'path' = '" + table.toUri() + "', 'buckets' = '2');",
                        "INSERT INTO scores VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'c', 3.0);",
                        "CREATE TEMPORARY TABLE gen (n BIGINT) WITH ('connector' = 'datagen', 'fields.n.kind' = 'sequence',",
                        "  'fields.n.start' = '0', 'fields.n.end' = '" + (GENERATED - 1) + "');",
                        // parallelism 1 (the cluster's default): the last n per key wins
                        "INSERT INTO scores SELECT n % " + GENERATED_KEYS
                                + " + 10, CONCAT('g', CAST(n AS STRING)), CAST(n AS DOUBLE) FROM gen;",
                        // compaction and garbage collection inside the sink, which run lance-core's
                        // merge-insert, fragment compaction and cleanup from the shaded jar
                        "CREATE TEMPORARY TABLE slow (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '500',",
                        "  'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (MAINTAINED - 1)
                                + "');",
                        "INSERT INTO scores /*+ OPTIONS('sink.compaction.enabled' = 'true', 'sink.gc.enabled' = 'true',"
                                + " 'sink.maintenance.interval' = '1s', 'sink.memtable.max-age' = '0s') */",
                        "  SELECT n % " + MAINTAINED_KEYS
                                + " + 1000, CONCAT('m', CAST(n AS STRING)), CAST(n AS DOUBLE) FROM slow;",
                        // the bounded snapshot: in streaming mode a SELECT would follow the table forever
                        "SELECT id, name FROM scores /*+ OPTIONS('scan.startup-mode' = 'snapshot') */;"));
        assertThat(selected(output, "id"))
                .as("rows the SELECT printed; output:%n%s", output)
                .isEqualTo(expected());
        String logs = cluster.taskManagerLogs();
        assertCompactionMerged(logs, table);
        assertThat(logs)
                .as("TaskManager logs: the sink's maintenance compacted the base table's files")
                .containsPattern("Compacted the files of .*" + table.getFileName());
        assertWritersTookTheirSlotsManagedMemory(logs, table);
        // lance-core's dispatcher panic when the jar comes with -j: explained in one line (docs/operations.md)
        System.out.println("SQL client output shows lance-core's AsyncScanner panic: "
                + output.contains("AsyncScanner class not found"));
    }

    /** The TaskManagers' logs show the sink's compaction merging SSTables of {@code table} into its base table. */
    static void assertCompactionMerged(String logs, Path table) {
        assertThat(logs)
                .as("TaskManager logs: the sink's compaction merged SSTables of %s into the base table", table)
                .containsPattern("Compacted .*" + table.getFileName() + ": [1-9]\\d* generations merged");
    }

    /**
     * Runs {@code statements} as one script ({@code sql-client -j CONNECTOR -f script}, or without
     * {@code -j} when {@code connectorJar} is null: the cluster's lib/ holds it), output in {@code
     * log/NAME.out}; the client must exit 0 without an {@code [ERROR]}. Returns its output.
     */
    static String execute(StandaloneCluster cluster, String name, Path connectorJar, List<String> statements)
            throws Exception {
        Path script = cluster.work().resolve(name + ".sql");
        Files.writeString(script, String.join("\n", statements) + "\n");
        List<String> args = connectorJar == null
                ? List.of("-f", script.toString())
                : List.of("-j", connectorJar.toString(), "-f", script.toString());
        Process client = cluster.startClient(name, true, "org.apache.flink.table.client.SqlClient", args);
        boolean ended = client.waitFor(StandaloneClusterIT.JOB_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        String output = cluster.output(name);
        assertThat(ended).as("the SQL client ended; output:%n%s", output).isTrue();
        assertThat(client.exitValue())
                .as("the SQL client's exit code; output:%n%s", output)
                .isZero();
        assertThat(output).as("SQL client output").doesNotContain("[ERROR]");
        return output;
    }

    /**
     * Every INSERT's writer (default memory options) sized itself from its slot's managed memory
     * and reserved it: the writers' open lines in the TaskManager's log.
     */
    static void assertWritersTookTheirSlotsManagedMemory(String logs, Path table) {
        Matcher opened = Pattern.compile(
                        "opened on \\S*/" + Pattern.quote(table.getFileName().toString())
                                + " \\(.*off-heap cap (\\d+) bytes .*derived from the slot; managed memory reserved (\\d+)"
                                + " bytes \\(\\d+m\\) of its share (\\d+) bytes")
                .matcher(logs);
        int writers = 0;
        while (opened.find()) {
            writers++;
            long cap = Long.parseLong(opened.group(1));
            long reserved = Long.parseLong(opened.group(2));
            long share = Long.parseLong(opened.group(3));
            System.out.printf(
                    "SQL writer %d: Arrow cap %,d, managed memory reserved %,d of its share %,d%n",
                    writers, cap, reserved, share);
            // Flink derives the managed size from the process size in floating point: within bytes of 256 MiB
            assertThat(share)
                    .as("the writer's share of its slot's managed memory")
                    .isBetween(StandaloneCluster.SLOT_MANAGED - (1 << 20), StandaloneCluster.SLOT_MANAGED + (1 << 20));
            assertThat(reserved)
                    .as("managed memory reserved")
                    .isLessThanOrEqualTo(share)
                    .isGreaterThan(share * 99 / 100);
            assertThat(cap).as("Arrow cap within the reservation").isLessThan(reserved);
        }
        assertThat(writers)
                .as("writers of the three INSERTs that logged their memory")
                .isEqualTo(3);
    }

    static Map<Long, String> expected() {
        Map<Long, String> rows = new TreeMap<>(Map.of(1L, "a", 2L, "b", 3L, "c"));
        for (int n = 0; n < GENERATED; n++) {
            rows.put((long) (n % GENERATED_KEYS + 10), "g" + n);
        }
        for (int n = 0; n < MAINTAINED; n++) {
            rows.put((long) (n % MAINTAINED_KEYS + 1000), "m" + n);
        }
        return rows;
    }

    /**
     * The rows of the tableau whose header names {@code keyColumn}, key to the next column's value
     * (with or without an op column before them).
     */
    static Map<Long, String> selected(String output, String keyColumn) {
        Map<Long, String> rows = new TreeMap<>();
        selectedRows(output, keyColumn).forEach((key, cells) -> rows.put(key, cells.get(0)));
        return rows;
    }

    /**
     * The rows of the tableau whose header names {@code keyColumn}, key to the cells after it; the
     * table ends at the first line that is neither a row nor a border.
     */
    static Map<Long, List<String>> selectedRows(String output, String keyColumn) {
        Map<Long, List<String>> rows = new TreeMap<>();
        int keyIndex = -1;
        for (String line : output.split("\n")) {
            if (!line.startsWith("|")) {
                if (!line.startsWith("+")) {
                    keyIndex = -1;
                }
                continue;
            }
            List<String> cells =
                    List.of(line.split("\\|")).stream().map(String::trim).toList();
            if (cells.contains(keyColumn)) {
                keyIndex = cells.indexOf(keyColumn);
            } else if (keyIndex >= 0) {
                rows.put(Long.parseLong(cells.get(keyIndex)), cells.subList(keyIndex + 1, cells.size()));
            }
        }
        return rows;
    }
}
