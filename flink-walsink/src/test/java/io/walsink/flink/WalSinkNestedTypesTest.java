package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.testing.Compactions;
import io.walsink.testing.NestedChanges;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ROW, ARRAY of ROW, MAP and ARRAY columns through a DataStream job of Rows with upserts and
 * deletes: the table read back equal to the model by TableReader, lance-core and LanceDB's default
 * read while the rows are in SSTables and after compaction merged them into the base table.
 */
class WalSinkNestedTypesTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void nestedColumnsRoundTripThroughADataStreamJob() throws Exception {
        NestedChanges changes = NestedChanges.seeded("WalSinkNestedTypesTest");
        Map<Long, Map<String, Object>> expected = changes.expected();
        Path path = dir.resolve("nested");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromData(changes.changes(), NestedChanges.typeInfo())
                .setParallelism(1) // one ordered changelog
                .sinkTo(WalSink.forRows(NestedChanges.rowType())
                        .path(path.toString())
                        .primaryKey("id")
                        .createTableIfMissing(2)
                        .compaction(false)
                        .build());
        env.execute("nested types");

        assertThat(readByTableReader(path)).isEqualTo(expected);
        NestedChanges.assertReadByLanceDbAndLanceCore(path, expected, false);
        Compactions.once(path);
        assertThat(readByTableReader(path)).isEqualTo(expected);
        NestedChanges.assertReadByLanceDbAndLanceCore(path, expected, true);
    }

    @Test
    void nestedKeyAndBucketColumnsAreRefusedBeforeAnythingIsWritten() {
        RowType item = RowType.of(new LogicalType[] {new IntType()}, new String[] {"n"});
        RowType type = RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new RowType(false, item.getFields()),
                    new MapType(false, VarCharType.STRING_TYPE, new IntType()),
                    new ArrayType(false, item)
                },
                new String[] {"id", "r", "m", "a"});
        for (String key : List.of("r", "m", "a")) {
            Path path = dir.resolve("key-" + key);
            assertThatThrownBy(() -> WalSink.forRows(type)
                            .path(path.toString())
                            .primaryKey(key)
                            .createTableIfMissing(2)
                            .build())
                    .as("key %s", key)
                    .hasMessageContaining("'" + key + "'")
                    .hasMessageContaining("primary key")
                    .hasMessageContaining("must be a primitive type");
            assertThat(path)
                    .as("nothing written for key %s", key)
                    .satisfiesAnyOf(p -> assertThat(p).doesNotExist(), p -> assertThat(Files.list(p))
                            .isEmpty());
        }
    }

    private static Map<Long, Map<String, Object>> readByTableReader(Path path) {
        try (TableReader reader = TableReader.open(path.toString())) {
            return NestedChanges.byKey(reader.read(ReadMode.COMMITTED).rows());
        }
    }
}
