package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.read.ReadMode;
import io.walsink.testing.Compactions;
import io.walsink.testing.NestedChanges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ROW, ARRAY of ROW, MAP and ARRAY columns through SQL: upserts and deletes written by INSERT,
 * read back equal to the model by the bounded scan, the streaming source, a lookup join, walsink's
 * own reader, lance-core and LanceDB's default read, both while the rows are in SSTables and after
 * compaction merged them into the base table (then also a filtered scan, and LanceDB's read of
 * the base table alone).
 */
class WalSinkSqlNestedTypesTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    private int probes;

    @Test
    void nestedColumnsRoundTripThroughEveryReader() throws Exception {
        NestedChanges changes = NestedChanges.seeded("WalSinkSqlNestedTypesTest");
        Map<Long, Map<String, Object>> expected = changes.expected();
        Path path = dir.resolve("nested");

        StreamExecutionEnvironment env = SqlTables.streamEnv();
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql(SqlTables.walsinkTable(
                "t",
                NestedChanges.SQL_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED",
                path,
                "buckets",
                "2",
                "sink.compaction.enabled",
                "false"));
        DataStream<Row> stream =
                env.fromData(changes.changes(), NestedChanges.typeInfo()).setParallelism(1);
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column(
                        "addr",
                        DataTypes.ROW(
                                DataTypes.FIELD("city", DataTypes.STRING()), DataTypes.FIELD("zip", DataTypes.INT())))
                .column(
                        "items",
                        DataTypes.ARRAY(DataTypes.ROW(
                                DataTypes.FIELD("sku", DataTypes.STRING()), DataTypes.FIELD("qty", DataTypes.INT()))))
                .column("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .column("tags", DataTypes.ARRAY(DataTypes.STRING()))
                .primaryKey("id")
                .build();
        sql.fromChangelogStream(stream, schema, ChangelogMode.upsert())
                .executeInsert("t")
                .await();

        // Published as SSTables only: compaction is off.
        assertThat(selectAll(sql, "t")).isEqualTo(expected);
        assertThat(NestedChanges.byKey(SqlTables.read(path, ReadMode.COMMITTED)))
                .isEqualTo(expected);
        NestedChanges.assertReadByLanceDbAndLanceCore(path, expected, false);
        sql.executeSql(SqlTables.walsinkTable("t_latest", NestedChanges.SQL_COLUMNS, path, "scan.mode", "latest"));
        assertThat(selectAll(sql, "t_latest")).isEqualTo(expected);
        assertThat(streamingSnapshot(sql, path, expected.size())).isEqualTo(expected);
        assertThat(lookup(sql, expected)).isEqualTo(expected);

        Compactions.once(path);
        assertThat(selectAll(sql, "t")).isEqualTo(expected);
        // A filter lance-core applies to the base rows, then Flink.
        assertThat(byKey(SqlTables.collect(sql, "SELECT * FROM t WHERE id < 20")))
                .isEqualTo(new TreeMap<>(expected).headMap(20L));
        assertThat(lookup(sql, expected)).isEqualTo(expected);
        NestedChanges.assertReadByLanceDbAndLanceCore(path, expected, true);
    }

    private static Map<Long, Map<String, Object>> selectAll(StreamTableEnvironment sql, String table) throws Exception {
        return byKey(SqlTables.collect(sql, "SELECT * FROM " + table));
    }

    /** The streaming source's first rows: the table as it stands, before any change follows. */
    private static Map<Long, Map<String, Object>> streamingSnapshot(StreamTableEnvironment sql, Path path, int rows)
            throws Exception {
        sql.executeSql(SqlTables.walsinkTable(
                "t_stream",
                NestedChanges.SQL_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED",
                path,
                "scan.startup-mode",
                "initial"));
        List<Row> read = new ArrayList<>();
        try (CloseableIterator<Row> it =
                sql.executeSql("SELECT * FROM t_stream").collect()) {
            while (read.size() < rows) {
                read.add(it.next());
            }
        }
        return byKey(read);
    }

    /** Every expected key and one never written, looked up by a join: the missing key finds nothing. */
    private Map<Long, Map<String, Object>> lookup(StreamTableEnvironment sql, Map<Long, Map<String, Object>> expected)
            throws Exception {
        StringBuilder keys = new StringBuilder("(CAST(-1 AS BIGINT))");
        expected.keySet().forEach(k -> keys.append(", (CAST(").append(k).append(" AS BIGINT))"));
        String probe = "probe" + probes++;
        sql.executeSql("CREATE TEMPORARY VIEW " + probe + " AS SELECT id, PROCTIME() AS proc FROM (VALUES " + keys
                + ") AS v(id)");
        return byKey(SqlTables.collect(
                sql,
                "SELECT t.id, t.addr, t.items, t.attrs, t.tags FROM " + probe + " AS p"
                        + " JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.id = t.id"));
    }

    private static Map<Long, Map<String, Object>> byKey(List<Row> rows) {
        Map<Long, Map<String, Object>> byKey = new TreeMap<>();
        for (Row row : rows) {
            Map<String, Object> plain = NestedChanges.plain(row);
            assertThat(byKey.put((Long) plain.get("id"), plain))
                    .as("key read twice")
                    .isNull();
        }
        return byKey;
    }
}
