package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.flink.WalSink;
import io.walsink.read.ReadMode;
import io.walsink.table.SqlTables;
import io.walsink.testing.LanceDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALTER TABLE ... ADD COLUMN through the catalog, with an insert job restored across it: rows
 * written before the change (base table, SSTables, WAL entries replayed by the restore) read the
 * new column as null, rows after it carry it, in walsink's reader, SQL and LanceDB's default read,
 * before and after compaction.
 */
class CatalogSchemaEvolutionTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final int ROWS = 3_000;
    /** Keys updated, and keys added, with a note after the ALTER. */
    private static final int NOTED = 50;
    /** Keys written as SSTables before the insert job starts, without the column added later. */
    private static final int EARLY = 100;

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void anInsertJobRestoredFromBeforeAnAddColumnWritesItAndEveryReaderSeesOldRowsAsNull() throws Exception {
        Path warehouse = dir.resolve("lake");
        Path table = warehouse.resolve("events.lance");
        Path checkpoints = dir.resolve("checkpoints");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        // Memtables stay open for an hour: what a checkpoint covers is in WAL entries, which the
        // restore replays under the new schema.
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + "'buckets' = '2', 'sink.compaction.enabled' = 'false', 'sink.memtable.max-age' = '1 h',"
                + " 'scan.startup-mode' = 'snapshot')");

        // The insert job, a DataStream job with uids (Flink SQL maps a checkpoint's state only to
        // an unchanged statement, and walsink's writer state is the same either way), declares the
        // columns the table had when it started; restored after the ALTER, it writes the new column
        // as null and replays WAL entries written without it.
        // Rows in SSTables written before the ALTER: keys after those the jobs write.
        sql.executeSql("INSERT INTO events SELECT id, CONCAT('n', CAST(id AS STRING)) FROM (VALUES "
                        + values(ROWS + NOTED + 1, EARLY) + ") AS t(id)")
                .await();
        JobClient a = insertJob(table, checkpoints, null);
        Path checkpoint = awaitCheckpointAfterRows(table, checkpoints, EARLY + 300);
        a.cancel().get();
        System.out.println("restoring " + checkpoint);

        sql.executeSql("ALTER TABLE events ADD note STRING");
        assertThat(sql.from("events").getResolvedSchema().getColumnNames()).containsExactly("id", "name", "note");
        List<Map<String, Object>> atAlter = SqlTables.read(table, ReadMode.LATEST);
        assertThat(atAlter).hasSizeGreaterThanOrEqualTo(EARLY + 300).allSatisfy(row -> assertThat(row)
                .containsEntry("note", null));
        assertThat(SqlTables.read(table, ReadMode.COMMITTED))
                .as("the insert job published nothing: what its checkpoint covers is only in WAL entries")
                .hasSize(EARLY);

        JobClient restored = insertJob(table, checkpoints, checkpoint);
        restored.getJobExecutionResult().get();
        // Rows with the new column: updates of old keys and new keys.
        sql.executeSql("INSERT INTO events SELECT id, CONCAT('n', CAST(id AS STRING)), CONCAT('u', CAST(id AS"
                        + " STRING)) FROM (VALUES " + values(1, NOTED) + ", " + values(ROWS + 1, NOTED) + ") AS t(id)")
                .await();

        checkModel(SqlTables.collect(sql, "SELECT id, name, note FROM events"), "SQL");
        checkModel(walsinkRows(table), "TableReader");
        List<String> columns = List.of("id", "name", "note");
        Map<String, LanceDb.Result> uncompacted =
                LanceDb.readByName(warehouse, "events", List.of(LanceDb.Query.of("all", null, columns)));
        checkModel(lanceDbRows(uncompacted.get("all")), "LanceDB, uncompacted");

        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        Map<String, LanceDb.Result> compacted = LanceDb.readByName(
                warehouse,
                "events",
                List.of(LanceDb.Query.of("all", null, columns), new LanceDb.Query("base", null, columns, false)));
        checkModel(lanceDbRows(compacted.get("all")), "LanceDB, compacted");
        checkModel(lanceDbRows(compacted.get("base")), "LanceDB, the base table alone");
        checkModel(SqlTables.collect(sql, "SELECT id, name, note FROM events"), "SQL, compacted");
    }

    private static final RowType BEFORE_ALTER = RowType.of(
            new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
            new String[] {"id", "name"});

    /** Ids 1 to {@link #ROWS} named {@code n<id>}, checkpointed every 200 ms; restored from {@code checkpoint} if given. */
    private static JobClient insertJob(Path table, Path checkpoints, Path checkpoint) throws Exception {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        if (checkpoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, checkpoint.toUri().toString());
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.enableCheckpointing(200);
        DataGeneratorSource<RowData> ids = new DataGeneratorSource<>(
                i -> GenericRowData.of(i + 1, StringData.fromString("n" + (i + 1))),
                ROWS,
                RateLimiterStrategy.perSecond(600),
                InternalTypeInfo.of(BEFORE_ALTER));
        Configuration sink = new Configuration();
        sink.setString("sink.compaction.enabled", "false");
        sink.setString("sink.memtable.max-age", "1 h"); // what a checkpoint covers stays in WAL entries
        env.fromSource(ids, WatermarkStrategy.noWatermarks(), "ids")
                .uid("ids")
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(BEFORE_ALTER)
                        .path(table.toString())
                        .primaryKey("id")
                        .options(sink)
                        .build())
                .uid("events");
        return env.executeAsync("insert into events");
    }

    private static String values(long from, int count) {
        StringBuilder values = new StringBuilder();
        for (long id = from; id < from + count; id++) {
            values.append(id == from ? "" : ", ").append("(CAST(").append(id).append(" AS BIGINT))");
        }
        return values.toString();
    }

    @Test
    void changesNoReaderCouldFollowFailNamingTheProblemBeforeAnythingIsWritten() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.executeSql("CREATE TABLE t (id BIGINT, n INT, f FLOAT, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '1', 'scan.startup-mode' = 'snapshot')");
        sql.executeSql("INSERT INTO t VALUES (1, 2, 3.0)").await();
        Path versions = warehouse.resolve("t.lance").resolve("_versions");
        List<Path> before = list(versions);

        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t DROP id"))
                .hasStackTraceContaining("The column `id` is used as the primary key"); // Flink refuses it first
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t DROP n"))
                .hasStackTraceContaining("dropping column 'n' is not supported");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t MODIFY n BIGINT"))
                .hasStackTraceContaining("the type of column 'n' cannot change");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t MODIFY f DOUBLE"))
                .hasStackTraceContaining("the type of column 'f' cannot change");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t RENAME n TO m"))
                .hasStackTraceContaining("renaming column 'n' is not supported");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t ADD x STRING NOT NULL"))
                .hasStackTraceContaining("Cannot add column 'x' to table 't' as NOT NULL");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t ADD x STRING FIRST"))
                .hasStackTraceContaining("columns are added at the end");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE t ADD (ok STRING, x MULTISET<INT>)"))
                .hasStackTraceContaining("Cannot add column 'x'");
        assertThatThrownBy(() -> sql.executeSql("ALTER TABLE `../t` ADD x STRING"))
                .hasStackTraceContaining("../t");
        assertThat(list(versions))
                .as("no refused change committed a base version")
                .isEqualTo(before);
        assertThat(sql.from("t").getResolvedSchema().getColumnNames()).containsExactly("id", "n", "f");

        SqlTables.collect(sql, "CALL lake.sys.compact('t')");
        SqlTables.collect(sql, "CALL lake.sys.create_tag('t', 'narrow')");
        sql.executeSql("ALTER TABLE t ADD (s STRING, d DOUBLE)");
        sql.executeSql("INSERT INTO t VALUES (2, 3, 4.0, 'x', 5.5)").await();
        assertThat(SqlTables.collect(sql, "SELECT * FROM t"))
                .containsExactlyInAnyOrder(Row.of(1L, 2, 3.0f, null, null), Row.of(2L, 3, 4.0f, "x", 5.5));
        assertThat(SqlTables.collect(sql, "SELECT id, n, f FROM t /*+ OPTIONS('scan.tag' = 'narrow') */"))
                .as("a version from before the ALTER, read with the columns it has")
                .containsExactly(Row.of(1L, 2, 3.0f));
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM t /*+ OPTIONS('scan.tag' = 'narrow') */"))
                .hasStackTraceContaining("has no column [s, d] (added after it)");
    }

    /**
     * Checks the rows against the model: ids 1 to {@link #ROWS} with their names, the first and
     * the {@link #NOTED} after them noted {@code u<id>}, then {@link #EARLY} more; the others' note
     * null (written before the column existed, or by the job that does not declare it).
     */
    private static void checkModel(List<?> rows, String reader) {
        List<Object[]> values = new ArrayList<>();
        for (Object row : rows) {
            if (row instanceof Row r) {
                values.add(new Object[] {r.getField(0), r.getField(1), r.getField(2)});
            } else if (row instanceof Map<?, ?> m) {
                values.add(new Object[] {m.get("id"), m.get("name"), m.get("note")});
            } else {
                values.add(((List<?>) row).toArray());
            }
        }
        values.sort(Comparator.comparingLong(v -> Long.parseLong(String.valueOf(v[0]))));
        assertThat(values).as("%s: every id once", reader).hasSize(ROWS + NOTED + EARLY);
        for (int i = 0; i < values.size(); i++) {
            Object[] v = values.get(i);
            long id = i + 1;
            assertThat(Long.parseLong(String.valueOf(v[0])))
                    .as("%s: ids", reader)
                    .isEqualTo(id);
            assertThat(String.valueOf(v[1])).as("%s: name of %d", reader, id).isEqualTo("n" + id);
            String note = id <= NOTED || (id > ROWS && id <= ROWS + NOTED) ? "u" + id : null;
            assertThat(v[2] == null ? null : String.valueOf(v[2]))
                    .as("%s: note of %d", reader, id)
                    .isEqualTo(note);
        }
    }

    private static List<Map<String, Object>> walsinkRows(Path table) {
        return SqlTables.read(table, ReadMode.COMMITTED);
    }

    private static List<List<String>> lanceDbRows(LanceDb.Result result) {
        assertThat(result.error()).isNull();
        List<List<String>> rows = new ArrayList<>();
        for (List<String> row : result.rows()) {
            List<String> r = new ArrayList<>(row);
            if ("null".equals(r.get(2))) {
                r.set(2, null);
            }
            rows.add(Arrays.asList(r.toArray(String[]::new)));
        }
        return rows;
    }

    /** Waits until the table holds {@code rows} rows and a checkpoint completed after that; returns it. */
    private static Path awaitCheckpointAfterRows(Path table, Path checkpoints, int rows) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        int seen = -1;
        while (System.nanoTime() < deadline) {
            Optional<Path> latest = latestCheckpoint(checkpoints);
            int number = latest.map(CatalogSchemaEvolutionTest::number).orElse(-1);
            if (seen < 0) {
                if (Files.isDirectory(table)
                        && SqlTables.read(table, ReadMode.LATEST).size() >= rows) {
                    seen = number;
                }
            } else if (number > seen) {
                return latest.orElseThrow();
            }
            Thread.sleep(50); // a poll interval, not a synchronisation: the loop waits for evidence
        }
        throw new AssertionError("no checkpoint completed after the table held " + rows + " rows within " + DEADLINE);
    }

    private static Optional<Path> latestCheckpoint(Path checkpoints) throws Exception {
        if (!Files.isDirectory(checkpoints)) {
            return Optional.empty();
        }
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            List<Path> completed = new ArrayList<>();
            for (Path job : jobs.toList()) {
                try (Stream<Path> chk = Files.list(job)) {
                    chk.filter(p -> p.getFileName().toString().startsWith("chk-"))
                            .filter(p -> Files.exists(p.resolve("_metadata")))
                            .forEach(completed::add);
                }
            }
            return completed.stream().max(Comparator.comparingInt(CatalogSchemaEvolutionTest::number));
        }
    }

    private static int number(Path checkpoint) {
        return Integer.parseInt(checkpoint.getFileName().toString().substring("chk-".length()));
    }

    private static List<Path> list(Path folder) throws Exception {
        try (Stream<Path> files = Files.list(folder)) {
            return files.sorted().toList();
        }
    }
}
