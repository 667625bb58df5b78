package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.FailoverTestSupport;
import io.walsink.flink.MiniClusters;
import io.walsink.format.table.TableLocation;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upserts and deletes reach a walsink table through SQL from a changelog stream (the
 * {@link ChangeGenerator} of the DataStream tests): the table read back by SELECT, by walsink's
 * reader and (upserts only) by lance-core equals the model, also with failures and restarts.
 */
class WalSinkSqlChangelogTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void deletesFromAChangelogStreamLeaveTheModelsTable() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(200, 7);
        long n = 3_000;
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = write(changes, n, path, i -> i, 200);

        assertThat(selectAll(sql)).isEqualTo(changes.model(n));
        assertThat(asModel(SqlTables.read(path, ReadMode.COMMITTED))).isEqualTo(changes.model(n));
    }

    @Test
    void upsertOnlyTableIsReadTheSameByLanceCore() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, 0);
        long n = 4_000;
        Path path = dir.resolve("t");
        StreamTableEnvironment sql = write(changes, n, path, i -> i, 200);

        assertThat(selectAll(sql)).isEqualTo(changes.model(n));
        try (RootAllocator allocator = new RootAllocator()) {
            List<UUID> shards = new io.walsink.read.snapshot.SnapshotReader(
                            new TableLocation(new LocalObjectStore(path), path.toString(), Map.of()),
                            io.walsink.format.wal.WalSchemaProfile.SPEC,
                            allocator)
                    .shards().stream().toList();
            List<Map<String, Object>> lance = LanceOracle.scan(
                    allocator,
                    path.toString(),
                    Map.of(),
                    LanceOracle.snapshots(new LocalObjectStore(path), shards),
                    List.of("id", "name"));
            assertThat(asModel(lance)).isEqualTo(changes.model(n));
        }
    }

    @Test
    void streamingInsertWithFailuresEndsWithTheModelsTable() throws Exception {
        ChangeGenerator changes = new ChangeGenerator(300, 9);
        long n = 20_000;
        Path path = dir.resolve("t");
        FailoverTestSupport.reset(0);
        StreamTableEnvironment sql =
                write(changes, n, path, new FailoverTestSupport.FailOnceAt(n / 5, n / 2, n * 4 / 5), 150);

        assertThat(FailoverTestSupport.FAILED_AT).hasSize(3);
        assertThat(selectAll(sql)).isEqualTo(changes.model(n));
        assertThat(asModel(SqlTables.read(path, ReadMode.COMMITTED))).isEqualTo(changes.model(n));
    }

    /**
     * Changes {@code 0 .. n-1} as an upsert changelog into a walsink table through INSERT INTO.
     * The source side runs at parallelism 1 (one ordered changelog); the writer at 2.
     */
    private static StreamTableEnvironment write(
            ChangeGenerator changes, long n, Path path, MapFunction<Long, Long> failures, long checkpointMillis)
            throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(FailoverTestSupport.restarting());
        env.setParallelism(1);
        env.enableCheckpointing(checkpointMillis);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql(SqlTables.walsinkTable(
                "t",
                "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED",
                path,
                "buckets",
                "4",
                "sink.parallelism",
                "2",
                "sink.flush-interval",
                "20ms",
                "sink.memtable.max-rows",
                "1000"));
        DataStream<Row> rows = env.fromSequence(0, n - 1)
                .map(failures)
                .map(i -> toRow(changes, i))
                .returns(Types.ROW_NAMED(new String[] {"id", "name"}, Types.LONG, Types.STRING));
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .primaryKey("id")
                .build();
        sql.fromChangelogStream(rows, schema, ChangelogMode.upsert())
                .executeInsert("t")
                .await();
        return sql;
    }

    private static Row toRow(ChangeGenerator changes, long i) {
        long key = changes.keyOf(i);
        return changes.isDelete(i) ? Row.ofKind(RowKind.DELETE, key, null) : Row.of(key, "v" + i);
    }

    private static Map<Long, String> selectAll(StreamTableEnvironment sql) throws Exception {
        Map<Long, String> table = new TreeMap<>();
        for (Row row : SqlTables.collect(sql, "SELECT id, name FROM t")) {
            table.put((Long) row.getField("id"), (String) row.getField("name"));
        }
        return table;
    }

    private static Map<Long, String> asModel(List<Map<String, Object>> rows) {
        Map<Long, String> table = new TreeMap<>();
        rows.forEach(r -> table.put((Long) r.get("id"), String.valueOf(r.get("name"))));
        return table;
    }
}
