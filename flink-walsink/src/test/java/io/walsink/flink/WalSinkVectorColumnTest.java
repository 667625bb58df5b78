package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.LanceTables;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
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
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * DataStream POJOs with a {@code float[]} field, written by a sink that declares it a vector
 * column: lance-core sees a fixed-size list of float32 holding exactly the written vectors; a
 * declared dimension that is not positive is refused by the builder.
 */
class WalSinkVectorColumnTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 8;

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    /** A document and its embedding. */
    public record Item(long id, float[] emb) {}

    @Test
    void floatArraysOfPojosAreStoredAsFixedSizeFloat32Vectors() throws Exception {
        long seed = System.nanoTime();
        System.out.println("WalSinkVectorColumnTest seed " + seed);
        Random random = new Random(seed);
        List<Item> items = new ArrayList<>();
        Map<Long, List<Float>> model = new TreeMap<>();
        for (long id = 0; id < 200; id++) {
            float[] emb = new float[DIMENSION];
            List<Float> expected = new ArrayList<>();
            for (int i = 0; i < DIMENSION; i++) {
                emb[i] = (float) random.nextGaussian();
                expected.add(emb[i]);
            }
            items.add(new Item(id, emb));
            model.put(id, expected);
        }
        Path path = dir.resolve("items");
        RowType rowType = RowType.of(
                new org.apache.flink.table.types.logical.LogicalType[] {
                    new BigIntType(false), new ArrayType(new FloatType(false))
                },
                new String[] {"id", "emb"});
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromData(items)
                .sinkTo(WalSink.forPojos(Item.class, rowType)
                        .path(path.toString())
                        .primaryKey("id")
                        .createTableIfMissing(2)
                        .vectorColumn("emb", DIMENSION)
                        .build());
        env.execute("vector column");

        Map<Long, List<Float>> read = new TreeMap<>();
        try (RootAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, path.toString(), Map.of())) {
            Field emb = base.getSchema().findField("emb");
            assertThat(emb.getType()).isEqualTo(new ArrowType.FixedSizeList(DIMENSION));
            assertThat(emb.getChildren().get(0).getType())
                    .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        }
        try (TableReader reader = TableReader.open(path.toString())) {
            for (Map<String, Object> row : reader.read(ReadMode.COMMITTED).rows()) {
                read.put((Long) row.get("id"), floats(row.get("emb")));
            }
        }
        assertThat(read).as("seed %s", seed).isEqualTo(model);
    }

    @Test
    void aDimensionThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> WalSink.forRows().vectorColumn("emb", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vector column 'emb': the dimension must be positive, got 0");
    }

    @SuppressWarnings("unchecked")
    private static List<Float> floats(Object value) {
        return new ArrayList<>((List<Float>) value);
    }
}
