package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.format.sharding.BucketAssigner;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The keyBy path (Flink value → hash) must route every row to the bucket Lance computes from the
 * Arrow value the row is stored as; the Arrow path is checked against lance-core elsewhere.
 */
class RowDataBucketHasherTest {
    private static final int ROWS = 5_000;

    record Case(String name, LogicalType type, Function<Random, Object> value) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case("boolean", new BooleanType(), Random::nextBoolean),
                new Case("tinyint", new TinyIntType(), r -> (byte) r.nextInt()),
                new Case("smallint", new SmallIntType(), r -> (short) r.nextInt()),
                new Case("int", new IntType(), Random::nextInt),
                new Case("bigint", new BigIntType(), Random::nextLong),
                new Case("date", new DateType(), r -> r.nextInt(200_000) - 100_000),
                new Case("time(0)", new TimeType(0), r -> r.nextInt(86_400_000)),
                new Case("time(3)", new TimeType(3), r -> r.nextInt(86_400_000)),
                new Case("time(6)", new TimeType(6), r -> r.nextInt(86_400_000)),
                new Case("timestamp(0)", new TimestampType(0), r -> ts(r)),
                new Case("timestamp(3)", new TimestampType(3), r -> ts(r)),
                new Case("timestamp(6)", new TimestampType(6), r -> ts(r)),
                new Case("timestamp(9)", new TimestampType(9), r -> ts(r)),
                new Case("timestamp_ltz(6)", new LocalZonedTimestampType(6), r -> ts(r)),
                new Case(
                        "float",
                        new FloatType(),
                        r -> r.nextInt(10) == 0 ? Float.NaN : (r.nextBoolean() ? -0.0f : r.nextFloat() * 1e6f)),
                new Case("double", new DoubleType(), r -> r.nextInt(10) == 0 ? -0.0 : r.nextGaussian() * 1e9),
                new Case("string", VarCharType.STRING_TYPE, r -> StringData.fromString(text(r))),
                new Case("bytes", new VarBinaryType(VarBinaryType.MAX_LENGTH), r -> text(r).getBytes(
                                StandardCharsets.UTF_8)));
    }

    private static TimestampData ts(Random r) {
        long millis = r.nextLong() % 4_000_000_000_000L;
        return TimestampData.fromEpochMillis(millis, r.nextInt(1_000_000));
    }

    private static String text(Random r) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(14); i > 0; i--) {
            b.append((char) (r.nextInt(5) == 0 ? 0x4e00 + r.nextInt(100) : 'a' + r.nextInt(26)));
        }
        return b.toString();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void agreesWithTheArrowPathForEveryRow(Case c) {
        RowType rowType = RowType.of(new LogicalType[] {c.type()}, new String[] {"k"});
        Schema schema = FlinkArrowTypes.toArrowSchema(rowType);
        RowDataArrowWriter writer = RowDataArrowWriter.create(rowType, schema);
        Random random = new Random(c.name().hashCode());
        for (int buckets : new int[] {1, 7, 1024}) {
            RowDataBucketHasher hasher =
                    new RowDataBucketHasher(rowType, schema.getFields().get(0), buckets);
            try (BufferAllocator allocator = new RootAllocator();
                    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                GenericRowData[] rows = new GenericRowData[ROWS];
                for (int i = 0; i < ROWS; i++) {
                    rows[i] = GenericRowData.of(
                            random.nextInt(50) == 0 ? null : c.value().apply(random));
                    writer.write(rows[i], root, i);
                }
                root.setRowCount(ROWS);
                int[] expected = new int[ROWS];
                BucketAssigner.of(schema.getFields().get(0).getType(), buckets).assign(root.getVector(0), expected);
                for (int i = 0; i < ROWS; i++) {
                    assertThat(hasher.bucketOf(rows[i]))
                            .as("row %d: %s", i, rows[i])
                            .isEqualTo(expected[i]);
                }
            }
        }
    }

    @Test
    void columnsLanceCannotBucketAreRefusedByName() {
        RowType rowType = RowType.of(new LogicalType[] {new DecimalType(10, 2)}, new String[] {"amount"});
        Schema schema = FlinkArrowTypes.toArrowSchema(rowType);
        assertThatThrownBy(() ->
                        new RowDataBucketHasher(rowType, schema.getFields().get(0), 4))
                .hasMessageContaining("amount");
    }

    @Test
    void missingShardingColumnIsNamed() {
        RowType rowType = RowType.of(new LogicalType[] {new IntType()}, new String[] {"other"});
        Schema schema =
                FlinkArrowTypes.toArrowSchema(RowType.of(new LogicalType[] {new IntType()}, new String[] {"id"}));
        assertThatThrownBy(() ->
                        new RowDataBucketHasher(rowType, schema.getFields().get(0), 4))
                .hasMessageContaining("id");
    }
}
