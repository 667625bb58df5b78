package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.examples.ChangeStream;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.storage.S3Options;
import io.walsink.testing.LanceDb;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

/**
 * The walsink catalog through the shaded jar on a standalone cluster, with a column added while
 * an insert job is down: the SQL client ({@code -j}) creates the catalog and a table and inserts
 * rows; the upsert demo (a DataStream job declaring the columns before the change) runs with
 * memtables kept for an hour and is cancelled after a checkpoint, so that what the checkpoint
 * covers is only in WAL entries; {@code ALTER TABLE ... ADD note STRING}; the demo restored from
 * the checkpoint ({@code flink run -s}) replays its WAL entries and finishes, writing {@code note}
 * as null; inserts with the column update old rows and add new ones. No sink compacts (the jobs'
 * SSTables wait for {@code CALL lake.sys.compact}): SQL, walsink's reader and LanceDB (the table
 * opened by name from the warehouse) must read the model from the SSTables and base table, and
 * after the compaction from the base table alone.
 */
final class CatalogEvolution {
    private static final String NAME = "demo";
    private static final long ROWS = 20_000;
    private static final int KEYS = 1_000;
    private static final int BUCKETS = 4;
    /** Ids the SQL client writes besides the demo's keys {@code 0..KEYS-1}. */
    private static final long SQL_IDS = 1_000_000;
    /** Records the demo's writers must have read before the checkpoint it is restored from. */
    private static final long BEFORE_CANCEL = 2_000;

    private static final List<String> COLUMNS = List.of("id", "value", "note");

    private final StandaloneCluster cluster;
    private final Workspace workspace;
    private final Path warehouse;
    private final String table;
    private final Duration timeout;
    private int scripts;

    private CatalogEvolution(StandaloneCluster cluster, Workspace workspace, Duration timeout) {
        this.cluster = cluster;
        this.workspace = workspace;
        this.warehouse = workspace.tables().resolve("lake");
        this.table = warehouse.resolve(NAME + ".lance").toString();
        this.timeout = timeout;
    }

    static void run(StandaloneCluster cluster, Workspace workspace, Duration timeout) throws Exception {
        new CatalogEvolution(cluster, workspace, timeout).run();
    }

    private void run() throws Exception {
        assertTheShadedJarRegistersTheCatalogFactory(workspace.connectorJar());
        sql(
                "CREATE TABLE " + NAME + " (id BIGINT, `value` STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('buckets' = '" + BUCKETS + "', 'scan.startup-mode' = 'snapshot',"
                        // the SQL inserts publish SSTables and leave them to CALL lake.sys.compact
                        + " 'sink.compaction.enabled' = 'false');",
                "INSERT INTO " + NAME + " SELECT id, CONCAT('sql-', CAST(id AS STRING)), CAST(id AS DOUBLE) FROM"
                        + " (VALUES " + values(SQL_IDS, 100) + ") AS t(id);");

        String checkpoint = demoCancelledAfterACheckpoint();
        assertThat(committedRows())
                .as("published rows after the cancel: only the SQL insert's, the demo's are in WAL entries")
                .hasSize(100);

        sql("ALTER TABLE " + NAME + " ADD note STRING;");
        try (TableReader reader = TableReader.open(table, S3Options.defaults())) {
            assertThat(reader.read(ReadMode.LATEST).rows())
                    .as("rows with the WAL entries the cancelled demo left, after the ALTER")
                    .hasSizeGreaterThan(100)
                    .allSatisfy(row -> assertThat(row).containsEntry("note", null));
        }

        restoreTheDemo(checkpoint);
        // updates of rows written before the column existed (by SQL and by the demo), and new rows
        String selected = sql(
                insertNoted(values(SQL_IDS + 50, 100) + ", " + values(0, 50)),
                "SELECT id, `value`, note FROM " + NAME + ";");
        Map<Long, List<String>> model = model();
        assertThat(tableau(selected))
                .as("rows the SELECT printed; output:%n%s", selected)
                .isEqualTo(model);
        assertThat(committedRows()).as("walsink's reader").isEqualTo(model);
        Map<String, LanceDb.Result> uncompacted =
                LanceDb.readByName(warehouse, NAME, List.of(LanceDb.Query.of("all", null, COLUMNS)));
        assertThat(uncompacted.get("tableNames").rows())
                .as("tables LanceDB lists in the warehouse")
                .contains(List.of(NAME));
        assertThat(lanceDbRows(uncompacted.get("all")))
                .as("LanceDB, uncompacted")
                .isEqualTo(model);

        String compacted = sql("CALL lake.sys.compact('" + NAME + "');", "SELECT id, `value`, note FROM " + NAME + ";");
        assertThat(compacted)
                .as("what CALL lake.sys.compact printed: the jobs' SSTables, which no sink compacted")
                .containsPattern("Compacted " + NAME + ": [1-9]\\d* generations merged");
        assertThat(tableau(compacted))
                .as("rows the SELECT printed after the compaction; output:%n%s", compacted)
                .isEqualTo(model);
        Map<String, LanceDb.Result> afterCompaction = LanceDb.readByName(
                warehouse,
                NAME,
                List.of(LanceDb.Query.of("all", null, COLUMNS), new LanceDb.Query("base", null, COLUMNS, false)));
        assertThat(lanceDbRows(afterCompaction.get("all")))
                .as("LanceDB, compacted")
                .isEqualTo(model);
        assertThat(lanceDbRows(afterCompaction.get("base")))
                .as("LanceDB, the base table alone after the compaction")
                .isEqualTo(model);
    }

    /**
     * The catalog factory is a service of the shaded jar (the SQL client finds it only there); the
     * scripts then show that CREATE CATALOG works with it.
     */
    private static void assertTheShadedJarRegistersTheCatalogFactory(Path connectorJar) throws IOException {
        try (ZipFile jar = new ZipFile(connectorJar.toFile())) {
            var services = jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory");
            assertThat(services)
                    .as("Flink's factory services in %s", connectorJar)
                    .isNotNull();
            assertThat(new String(jar.getInputStream(services).readAllBytes()))
                    .contains("io.walsink.table.catalog.WalSinkCatalogFactory");
        }
    }

    /** The demo at 1,000 changes/s, cancelled after a checkpoint that covers {@link #BEFORE_CANCEL} records. */
    private String demoCancelledAfterACheckpoint() throws Exception {
        String jobId = submitDemo("catalog-demo", List.of());
        Poll.until(
                timeout,
                BEFORE_CANCEL + " records into the writers of job " + jobId,
                () -> Jobs.recordsIntoWriters(cluster.rest(), jobId),
                n -> n >= BEFORE_CANCEL);
        long completed = Jobs.completedCheckpoints(cluster.rest(), jobId);
        Poll.until(
                timeout,
                "a checkpoint of job " + jobId + " after " + completed,
                () -> Jobs.completedCheckpoints(cluster.rest(), jobId),
                n -> n > completed);
        Jobs.cancel(cluster.rest(), jobId, timeout);
        String checkpoint = Jobs.latestCheckpoint(cluster.rest(), jobId);
        System.out.printf("catalog demo %s cancelled; restoring %s%n", jobId, checkpoint);
        return checkpoint;
    }

    /** The demo restored from {@code checkpoint}, declaring no note column; it must finish. */
    private void restoreTheDemo(String checkpoint) throws Exception {
        String jobId = submitDemo("catalog-demo-restored", List.of("-s", checkpoint));
        Jobs.awaitState(cluster.rest(), jobId, "FINISHED", timeout);
        assertThat(cluster.rest()
                        .get("/jobs/" + jobId + "/checkpoints")
                        .get("latest")
                        .get("restored")
                        .get("external_path")
                        .asText())
                .as("the checkpoint job %s was restored from", jobId)
                .isEqualTo(checkpoint);
    }

    /** Submits the demo detached with checkpoints kept on cancellation; returns its job id. */
    private String submitDemo(String name, List<String> restore) throws Exception {
        List<String> options = new ArrayList<>(
                List.of("-d", "-Dexecution.checkpointing.externalized-checkpoint-retention=RETAIN_ON_CANCELLATION"));
        options.addAll(restore);
        Process client = Demo.submit(
                cluster,
                workspace.jobJar(),
                name,
                options,
                table,
                ROWS,
                KEYS,
                BUCKETS,
                List.of(
                        "--rate",
                        "1000",
                        "--sink-option",
                        "sink.memtable.max-age=1 h",
                        "--sink-option",
                        "sink.compaction.enabled=false"));
        Demo.awaitClient(cluster, name, client, timeout, "submitted detached");
        Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(cluster.output(name));
        assertThat(id.find()).as("the job id flink run printed").isTrue();
        return id.group(1);
    }

    /** Runs a SQL client script on the catalog, {@code statements} after its CREATE CATALOG; returns its output. */
    private String sql(String... statements) throws Exception {
        List<String> script = new ArrayList<>(List.of(
                "SET 'sql-client.execution.result-mode' = 'tableau';",
                "SET 'table.dml-sync' = 'true';",
                "SET 'execution.checkpointing.interval' = '1s';",
                "CREATE CATALOG lake WITH ('type' = 'walsink', 'warehouse' = '" + warehouse + "');",
                "USE CATALOG lake;"));
        script.addAll(Arrays.asList(statements));
        return SqlClientScript.execute(cluster, "catalog-sql-" + (++scripts), workspace.connectorJar(), script);
    }

    private static String insertNoted(String ids) {
        return "INSERT INTO " + NAME + " SELECT id, CONCAT('sql-', CAST(id AS STRING)), CAST(id AS DOUBLE),"
                + " CONCAT('u', CAST(id AS STRING)) FROM (VALUES " + ids + ") AS t(id);";
    }

    /**
     * The demo's changes, the SQL ids {@code SQL_IDS..+149} named {@code sql-<id>} and the demo's
     * keys {@code 0..49} overwritten the same way, noted {@code u<id>} where inserted after the ALTER.
     */
    private static Map<Long, List<String>> model() {
        Map<Long, List<String>> model = new TreeMap<>();
        new ChangeStream(KEYS).model(ROWS).forEach((id, value) -> model.put(id, Arrays.asList(value, null)));
        for (long id = SQL_IDS; id < SQL_IDS + 150; id++) {
            model.put(id, Arrays.asList("sql-" + id, id < SQL_IDS + 50 ? null : "u" + id));
        }
        for (long id = 0; id < 50; id++) {
            model.put(id, Arrays.asList("sql-" + id, "u" + id));
        }
        return model;
    }

    private Map<Long, List<String>> committedRows() {
        Map<Long, List<String>> rows = new TreeMap<>();
        try (TableReader reader = TableReader.open(table, S3Options.defaults())) {
            reader.read(ReadMode.COMMITTED)
                    .rows()
                    .forEach(r -> putOnce(
                            rows, (Long) r.get("id"), Arrays.asList((String) r.get("value"), (String) r.get("note"))));
        }
        return rows;
    }

    /** The SELECT's rows in the SQL client's output, key to the other columns ({@code <NULL>} as null). */
    private static Map<Long, List<String>> tableau(String output) {
        Map<Long, List<String>> rows = SqlClientScript.selectedRows(output, "id");
        rows.replaceAll((id, cells) ->
                cells.stream().map(c -> c.equals("<NULL>") ? null : c).toList());
        return rows;
    }

    /** LanceDB's rows, key to the other columns (null where LanceDB returned null). */
    private static Map<Long, List<String>> lanceDbRows(LanceDb.Result result) {
        assertThat(result.error()).as("LanceDB's error").isNull();
        Map<Long, List<String>> rows = new TreeMap<>();
        for (List<String> row : result.rows()) {
            List<String> rest = new ArrayList<>(row.subList(1, row.size()));
            rest.replaceAll(v -> "null".equals(v) ? null : v);
            putOnce(rows, Long.parseLong(row.get(0)), rest);
        }
        return rows;
    }

    private static void putOnce(Map<Long, List<String>> rows, Long key, List<String> values) {
        List<String> before = rows.put(key, values);
        assertThat(before)
                .as("key %d read twice (%s and %s)", key, before, values)
                .isNull();
    }

    /** {@code (CAST(from AS BIGINT)), ...}: {@code count} ids. */
    private static String values(long from, int count) {
        StringBuilder values = new StringBuilder();
        for (long id = from; id < from + count; id++) {
            values.append(id == from ? "" : ", ").append("(CAST(").append(id).append(" AS BIGINT))");
        }
        return values.toString();
    }
}
