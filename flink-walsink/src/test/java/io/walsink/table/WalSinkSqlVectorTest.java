package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lance.Dataset;

/**
 * Vector columns declared in SQL ({@code 'vector.<column>.dimension'}): the table is created with
 * a Lance fixed-size list of float32 (as lance-core reports its schema), the vectors read back as
 * written, a vector of another length fails the job naming the column and the row with nothing
 * committed, and bad declarations fail while planning, naming the option or the column.
 */
class WalSinkSqlVectorTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS = "id BIGINT, emb ARRAY<FLOAT>, PRIMARY KEY (id) NOT ENFORCED";

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void anArrayOfFloatDeclaredAsAVectorIsAFixedSizeListOfFloat32() throws Exception {
        long seed = System.nanoTime();
        System.out.println("WalSinkSqlVectorTest seed " + seed);
        Random random = new Random(seed);
        Path path = dir.resolve("v");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("v", COLUMNS, path, "buckets", "2", "vector.emb.dimension", "4"));
        Map<Long, List<Float>> model = new TreeMap<>();
        List<String> values = new ArrayList<>();
        for (long id = 0; id < 50; id++) {
            List<Float> vector = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                vector.add((float) random.nextGaussian());
            }
            model.put(id, vector);
            values.add("(" + id + ", ARRAY["
                    + String.join(
                            ", ",
                            vector.stream().map(f -> "CAST(" + f + " AS FLOAT)").toList()) + "])");
        }
        sql.executeSql("INSERT INTO v VALUES " + String.join(", ", values)).await();

        try (RootAllocator allocator = new RootAllocator();
                Dataset ds = LanceTables.openDataset(allocator, path.toString(), Map.of())) {
            Field emb = ds.getSchema().findField("emb");
            assertThat(emb.getType()).isEqualTo(new ArrowType.FixedSizeList(4));
            assertThat(emb.getChildren().get(0).getType())
                    .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        }
        Map<Long, List<Float>> read = new TreeMap<>();
        for (Row row : SqlTables.collect(sql, "SELECT id, emb FROM v")) {
            List<Float> vector = new ArrayList<>();
            for (Float f : (Float[]) row.getField(1)) {
                vector.add(f);
            }
            read.put((Long) row.getField(0), vector);
        }
        assertThat(read).as("seed %s", seed).isEqualTo(model);
    }

    @Test
    void aVectorOfAnotherLengthFailsTheJobNamingTheColumnAndNothingIsCommitted() throws Exception {
        Path path = dir.resolve("w");
        Configuration config = new Configuration();
        config.setString("restart-strategy.type", "none"); // the row fails every attempt
        StreamTableEnvironment sql =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(config));
        sql.executeSql(SqlTables.walsinkTable("w", COLUMNS, path, "buckets", "1", "vector.emb.dimension", "3"));
        assertThatThrownBy(() -> sql.executeSql(
                                "INSERT INTO w VALUES (1, ARRAY[CAST(1 AS FLOAT), 2, 3]), (2, ARRAY[CAST(1 AS FLOAT), 2])")
                        .await())
                .hasStackTraceContaining("column 'emb'")
                .hasStackTraceContaining("row ")
                .hasStackTraceContaining("array has 2 elements, the column is a fixed-size list of 3");
        assertThat(SqlTables.read(path, ReadMode.COMMITTED))
                .as("committed rows")
                .isEmpty();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "vector.emb.dimension | 0    | Option 'vector.emb.dimension' must be a positive integer, got '0'",
                "vector.emb.dimension | four | Option 'vector.emb.dimension' must be a positive integer, got 'four'",
                "vector.emb.size      | 4    | Unsupported option 'vector.emb.size'",
                "vector.nope.dimension | 4   | fixed-size list columns [nope] are not in the row type",
                "vector.id.dimension  | 4    | column 'id' is declared a fixed-size list but its type BIGINT",
            })
    void aBadVectorDeclarationFailsNamingIt(String option, String value, String message) {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("b", COLUMNS, dir.resolve("b"), "buckets", "1", option, value));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO b VALUES (1, ARRAY[CAST(1 AS FLOAT)])"))
                .hasStackTraceContaining(message);
    }

    @Test
    void anExistingTableWhoseVectorHasAnotherDimensionIsRefused() throws Exception {
        Path path = dir.resolve("e");
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable("e4", COLUMNS, path, "buckets", "1", "vector.emb.dimension", "4"));
        sql.executeSql("INSERT INTO e4 VALUES (1, ARRAY[CAST(1 AS FLOAT), 2, 3, 4])")
                .await();
        sql.executeSql(SqlTables.walsinkTable("e8", COLUMNS, path, "vector.emb.dimension", "8"));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO e8 VALUES (1, ARRAY[CAST(1 AS FLOAT)])"))
                .hasStackTraceContaining("vector column 'emb' is declared with dimension 8")
                .hasStackTraceContaining("FixedSizeList(4)");
    }
}
