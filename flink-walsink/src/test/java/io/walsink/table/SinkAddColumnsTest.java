package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * {@code 'sink.add-columns'}: a sink declaring columns the table lacks adds them before it writes;
 * rows written before read them as null in every reader. Off (the default), the sink fails naming
 * the column, and nothing is written.
 */
class SinkAddColumnsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    @Test
    void aSinkDeclaringANewColumnAddsItWhenAskedAndOldRowsReadItAsNull() throws Exception {
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = threeRows(path);
        List<Path> versions = versions(path);

        String wider = "id BIGINT, name STRING, note STRING, score DOUBLE, PRIMARY KEY (id) NOT ENFORCED";
        sql.executeSql(SqlTables.walsinkTable("strict", wider, path, "sink.compaction.enabled", "false"));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO strict VALUES (4, 'd', 'x', 1.5)"))
                .hasStackTraceContaining("column 'note'")
                .hasStackTraceContaining("not in the table");
        sql.executeSql(SqlTables.walsinkTable(
                "notNull",
                "id BIGINT, name STRING, note STRING NOT NULL, PRIMARY KEY (id) NOT ENFORCED",
                path,
                "sink.add-columns",
                "true"));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO notNull VALUES (4, 'd', 'x')"))
                .hasStackTraceContaining("column 'note' cannot be added as NOT NULL");
        assertThat(versions(path)).as("refused sinks wrote nothing").isEqualTo(versions);

        sql.executeSql(SqlTables.walsinkTable(
                "evolving", wider, path, "sink.add-columns", "true", "sink.compaction.enabled", "false"));
        sql.executeSql("INSERT INTO evolving VALUES (2, 'b2', 'x', 1.5), (4, 'd', 'y', 2.5)")
                .await();

        List<Row> expected = List.of(
                Row.of(1L, "a", null, null),
                Row.of(2L, "b2", "x", 1.5),
                Row.of(3L, "c", null, null),
                Row.of(4L, "d", "y", 2.5));
        assertThat(SqlTables.collect(sql, "SELECT id, name, note, score FROM evolving"))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(SqlTables.read(path, ReadMode.COMMITTED))
                .extracting(row -> row.get("note"))
                .containsExactlyInAnyOrder(null, "x", null, "y");
        Map<String, LanceDb.Result> lancedb =
                LanceDb.read(path, List.of(LanceDb.Query.of("all", null, List.of("id", "name", "note", "score"))));
        assertThat(lancedb.get("all").error()).isNull();
        assertThat(lancedb.get("all").rows())
                .as("LanceDB's default read")
                .containsExactlyInAnyOrder(
                        Arrays.asList("1", "a", null, null),
                        Arrays.asList("2", "b2", "x", "1.5"),
                        Arrays.asList("3", "c", null, null),
                        Arrays.asList("4", "d", "y", "2.5"));
        // The table declared before still writes: its rows read the added columns as null.
        sql.executeSql("INSERT INTO t VALUES (5, 'e')").await();
        assertThat(SqlTables.collect(sql, "SELECT id, name, note, score FROM evolving WHERE id = 5"))
                .containsExactly(Row.of(5L, "e", null, null));
    }

    /**
     * A job that went on writing with the columns it started with leaves SSTables without the
     * added column after the ALTER (here: the column added to the base table directly, as the
     * ALTER's last step does). walsink's reader reads them as null and the compactor merges them
     * into the base table as null.
     */
    @Test
    void sstablesWrittenBeforeAColumnWasAddedReadItAsNullAndMergeIntoTheBase() throws Exception {
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = threeRows(path);
        sql.executeSql("INSERT INTO t VALUES (2, CAST(NULL AS STRING))").await(); // a newer SSTable
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = Dataset.open(path.toString(), allocator)) {
            base.addColumns(List.of(Field.nullable("note", ArrowType.Utf8.INSTANCE)));
        }
        List<Map<String, Object>> expected = List.of(row(1L, "a"), row(2L, null), row(3L, "c"));
        assertThat(SqlTables.read(path, ReadMode.COMMITTED)).containsExactlyInAnyOrderElementsOf(expected);

        CompactionResult merged = Compactor.compact(path.toString(), null, CompactorOptions.defaults());
        assertThat(merged.describe("t").toString()).doesNotContain(": 0 generations");
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = Dataset.open(path.toString(), allocator)) {
            assertThat(LanceRows.scan(base))
                    .as("lance-core's scan of the base table alone")
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
        assertThat(SqlTables.read(path, ReadMode.COMMITTED)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Table {@code t} (id, name) at {@code path} with keys 1 to 3, uncompacted. */
    private static StreamTableEnvironment threeRows(Path path) throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "t",
                "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED",
                path,
                "buckets",
                "2",
                "sink.compaction.enabled",
                "false"));
        sql.executeSql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        return sql;
    }

    private static Map<String, Object> row(long id, String name) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("note", null);
        return row;
    }

    private static List<Path> versions(Path table) throws Exception {
        try (Stream<Path> files = Files.list(table.resolve("_versions"))) {
            return files.sorted().toList();
        }
    }
}
