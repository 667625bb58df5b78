package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.storage.S3Options;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.DataType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base rows reach Flink as columnar rows over a heap copy of their batch: rows kept past later
 * emits, later batches and the split's close still hold their own values, for columns of many
 * types with nulls, and a SQL SELECT equals the model. The table's base spans several 4,096-row
 * batches, with some keys updated above it.
 */
class ColumnarScanRowsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int KEYS = 10_000;
    private static final String COLUMNS = "id BIGINT, i INT, s STRING, d DOUBLE, b BOOLEAN, amount DECIMAL(10, 2),"
            + " dt DATE, ts TIMESTAMP(6), bs BYTES, ints ARRAY<INT>, si SMALLINT,"
            + " f FLOAT, ti TINYINT, bin BINARY(2), t TIME(0), c CHAR(3)";
    private static final DataType ROW = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("i", DataTypes.INT()),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("b", DataTypes.BOOLEAN()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("dt", DataTypes.DATE()),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(6)),
            DataTypes.FIELD("bs", DataTypes.BYTES()),
            DataTypes.FIELD("ints", DataTypes.ARRAY(DataTypes.INT())),
            DataTypes.FIELD("si", DataTypes.SMALLINT()),
            DataTypes.FIELD("f", DataTypes.FLOAT()),
            DataTypes.FIELD("ti", DataTypes.TINYINT()),
            DataTypes.FIELD("bin", DataTypes.BINARY(2)),
            DataTypes.FIELD("t", DataTypes.TIME(0)),
            DataTypes.FIELD("c", DataTypes.CHAR(3)));
    private static final TypeInformation<Row> SOURCE_TYPE = new RowTypeInfo(
            Types.LONG,
            Types.INT,
            Types.STRING,
            Types.DOUBLE,
            Types.BOOLEAN,
            Types.BIG_DEC,
            Types.LOCAL_DATE,
            Types.LOCAL_DATE_TIME,
            Types.PRIMITIVE_ARRAY(Types.BYTE),
            Types.OBJECT_ARRAY(Types.INT),
            Types.SHORT,
            Types.FLOAT,
            Types.BYTE,
            Types.PRIMITIVE_ARRAY(Types.BYTE),
            Types.LOCAL_TIME,
            Types.STRING);

    @TempDir
    Path dir;

    /** id -> the row the table holds for it. */
    private final Map<Long, Row> model = new TreeMap<>();

    @Test
    void keptColumnarRowsAndSqlRowsEqualTheModel() throws Exception {
        long seed = new Random().nextLong();
        System.out.println("ColumnarScanRowsTest seed " + seed);
        Random random = new Random(seed);
        Path path = dir.resolve("t");
        StreamExecutionEnvironment env = env();
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql("CREATE TABLE t (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + path + "', 'buckets' = '2', 'sink.compaction.enabled' = 'false',"
                + " 'scan.startup-mode' = 'snapshot')");
        insert(
                env,
                sql,
                IntStream.range(0, KEYS).mapToObj(id -> row(id, random)).toList());
        Compactor.compact(path.toString(), S3Options.defaults(), CompactorOptions.defaults());
        // distinct keys: the rows of one INSERT may reach the writer in another order
        List<Integer> updated =
                random.ints(0, KEYS).distinct().limit(KEYS / 20).boxed().toList();
        insert(env, sql, updated.stream().map(id -> row(id, random)).toList());

        List<String> expected =
                model.values().stream().map(ColumnarScanRowsTest::show).toList();
        List<RowData> kept = scanKeepingEveryRow(path);
        assertThat(kept).as("base rows come as columnar rows").hasAtLeastOneElementOfType(ColumnarRowData.class);
        DataStructureConverter<Object, Object> external = DataStructureConverters.getConverter(ROW);
        external.open(getClass().getClassLoader());
        assertThat(kept.stream().map(r -> show((Row) external.toExternal(r))).toList())
                .as("rows kept to the end of the scan, seed %s", seed)
                .containsExactlyInAnyOrderElementsOf(expected);

        List<String> selected = new ArrayList<>();
        try (CloseableIterator<Row> rows = sql.executeSql("SELECT * FROM t").collect()) {
            rows.forEachRemaining(r -> selected.add(show(r)));
        }
        assertThat(selected).as("SELECT *, seed %s", seed).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static StreamExecutionEnvironment env() {
        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", "200ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        return env;
    }

    /** Every split read by one reader, each row kept as emitted: none is copied here. */
    private static List<RowData> scanKeepingEveryRow(Path path) throws Exception {
        TableScan scan = new TableScan(
                path.toString(),
                S3Options.defaults(),
                Map.of(),
                WalSchemaProfile.SPEC,
                ReadMode.COMMITTED,
                List.of("id", "i", "s", "d", "b", "amount", "dt", "ts", "bs", "ints", "si", "f", "ti", "bin", "t", "c"),
                -1);
        ScanHarness harness = new ScanHarness(scan);
        try (var reader = harness.reader(harness.allSplits())) {
            return ScanHarness.poll(reader, -1);
        }
    }

    private static void insert(StreamExecutionEnvironment env, StreamTableEnvironment sql, List<Row> rows)
            throws Exception {
        sql.createTemporaryView("src", sql.fromDataStream(env.fromData(rows, SOURCE_TYPE)));
        sql.executeSql("INSERT INTO t SELECT f0, f1, f2, f3, f4, CAST(f5 AS DECIMAL(10, 2)), f6,"
                        + " CAST(f7 AS TIMESTAMP(6)), f8, f9, f10, f11, f12, CAST(f13 AS BINARY(2)), CAST(f14 AS TIME(0)),"
                        + " CAST(f15 AS CHAR(3)) FROM src")
                .await();
        sql.dropTemporaryView("src");
    }

    /** A random row for key {@code id}, recorded in the model; any column but the key may be null. */
    private Row row(long id, Random random) {
        Row row = Row.of(
                id,
                orNull(random, random.nextInt()),
                orNull(random, "s" + Long.toString(random.nextLong(), 36).repeat(random.nextInt(3))),
                orNull(random, random.nextDouble()),
                orNull(random, random.nextBoolean()),
                orNull(random, BigDecimal.valueOf(random.nextInt(2_000_000_000) - 1_000_000_000L, 2)),
                orNull(random, LocalDate.ofEpochDay(random.nextInt(40_000) - 10_000)),
                orNull(random, LocalDateTime.of(2000, 1, 1, 0, 0).plusNanos(random.nextInt(1 << 30) * 1_000L)),
                orNull(random, bytes(random)),
                orNull(random, new Integer[] {random.nextInt(), null, random.nextInt(100)}),
                orNull(random, (short) random.nextInt(Short.MAX_VALUE)),
                orNull(random, random.nextFloat()),
                orNull(random, (byte) random.nextInt(256)),
                orNull(random, new byte[] {(byte) random.nextInt(256), (byte) random.nextInt(256)}),
                orNull(random, LocalTime.ofSecondOfDay(random.nextInt(86_400))),
                orNull(
                        random,
                        Long.toString(
                                1_296 + random.nextInt(46_656 - 1_296),
                                36))); // three characters, as CHAR(3) holds them
        model.put(id, row);
        return row;
    }

    private static byte[] bytes(Random random) {
        byte[] bytes = new byte[random.nextInt(6)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static Object orNull(Random random, Object value) {
        return random.nextInt(10) == 0 ? null : value;
    }

    /** The fields in order, arrays by content. */
    private static String show(Row row) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < row.getArity(); i++) {
            Object v = row.getField(i);
            b.append(i == 0 ? "" : "|")
                    .append(
                            v instanceof byte[] bytes
                                    ? Arrays.toString(bytes)
                                    : v instanceof Object[] array ? Arrays.deepToString(array) : String.valueOf(v));
        }
        return b.toString();
    }
}
