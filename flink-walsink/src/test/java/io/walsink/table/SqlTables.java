package io.walsink.table;

import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** Table environments for the SQL tests, and ways to look at a walsink table from outside SQL. */
public final class SqlTables {
    private SqlTables() {}

    /** Streaming mode, checkpoints every 200 ms (published data follows them), parallelism 2. */
    public static StreamTableEnvironment env() {
        return StreamTableEnvironment.create(streamEnv());
    }

    /** {@link #env()} with catalog {@code lake} of type walsink over {@code warehouse} in use. */
    public static StreamTableEnvironment catalog(Path warehouse) {
        StreamTableEnvironment sql = env();
        sql.executeSql("CREATE CATALOG lake WITH ('type' = 'walsink', 'warehouse' = '" + warehouse + "')");
        sql.executeSql("USE CATALOG lake");
        return sql;
    }

    /** The DataStream environment {@link #env()} is made on, for a test that feeds SQL from a stream. */
    public static StreamExecutionEnvironment streamEnv() {
        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", "200ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        return env;
    }

    /**
     * A walsink table whose SELECTs read the bounded snapshot unless {@code options} say otherwise:
     * in streaming mode a SELECT reads continuously by default, and these tests collect a SELECT
     * to its end.
     */
    public static String walsinkTable(String name, String columns, Path path, String... options) {
        StringBuilder with = new StringBuilder("'connector' = 'walsink', 'path' = '" + path + "'");
        if (!List.of(options).contains("scan.startup-mode")) {
            with.append(", 'scan.startup-mode' = 'snapshot'");
        }
        for (int i = 0; i < options.length; i += 2) {
            with.append(", '")
                    .append(options[i])
                    .append("' = '")
                    .append(options[i + 1])
                    .append("'");
        }
        return "CREATE TABLE " + name + " (" + columns + ") WITH (" + with + ")";
    }

    public static List<Row> collect(StreamTableEnvironment tables, String query) throws Exception {
        TableResult result = tables.executeSql(query);
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** The table as walsink's own reader (outside Flink) sees it. */
    public static List<Map<String, Object>> read(Path path, ReadMode mode) {
        try (RootAllocator allocator = new RootAllocator()) {
            return new SnapshotReader(
                            new TableLocation(new LocalObjectStore(path), path.toString(), Map.of()),
                            WalSchemaProfile.SPEC,
                            allocator)
                    .read(mode)
                    .rows();
        }
    }
}
