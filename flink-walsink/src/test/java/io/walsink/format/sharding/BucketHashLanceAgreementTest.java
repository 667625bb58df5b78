package io.walsink.format.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.memwal.ShardingEvaluator;
import org.lance.memwal.ShardingField;
import org.lance.memwal.ShardingSpec;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

/**
 * Our buckets against lance-core 7.0.0's {@code ShardingEvaluator} over random columns of every
 * type both accept, with nulls, extremes, both zeros, NaN payloads and strings of every tail
 * length. The evaluator needs field ids, which only a real dataset's {@link LanceSchema} gives.
 */
class BucketHashLanceAgreementTest {

    private static final int ROWS = 10_000;
    private static final int[] BUCKET_COUNTS = {1024, 1021, 8, 1};

    private static final List<Field> FIELDS = List.of(
            field("bool", ArrowType.Bool.INSTANCE),
            field("int8", new ArrowType.Int(8, true)),
            field("int16", new ArrowType.Int(16, true)),
            field("int32", new ArrowType.Int(32, true)),
            field("uint8", new ArrowType.Int(8, false)),
            field("uint16", new ArrowType.Int(16, false)),
            field("uint32", new ArrowType.Int(32, false)),
            field("date32", new ArrowType.Date(DateUnit.DAY)),
            field("time32s", new ArrowType.Time(TimeUnit.SECOND, 32)),
            field("time32ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
            field("int64", new ArrowType.Int(64, true)),
            field("uint64", new ArrowType.Int(64, false)),
            field("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            field("ts_ns_utc", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
            field("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
            field("time64us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
            field("time64ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
            field("float32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            field("float64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            field("utf8", ArrowType.Utf8.INSTANCE),
            field("large_utf8", ArrowType.LargeUtf8.INSTANCE),
            field("binary", ArrowType.Binary.INSTANCE),
            field("large_binary", ArrowType.LargeBinary.INSTANCE));

    private static final String[] CHARS = {"a", "Z", "0", " ", "\u0000", "\u007f", "ü", "ß", "世", "界", "😀", "\uFFFD"};

    @TempDir
    static Path tableDir;

    private static BufferAllocator allocator;
    private static VectorSchemaRoot root;
    private static final Map<String, Integer> fieldIds = new HashMap<>();
    private static LanceSchema lanceSchema;

    @BeforeAll
    static void fill() {
        allocator = new RootAllocator();
        Schema schema = new Schema(FIELDS);
        try (Dataset ds = Dataset.create(
                allocator, tableDir.resolve("t.lance").toString(), schema, new WriteParams.Builder().build())) {
            lanceSchema = ds.getLanceSchema();
        }
        for (LanceField f : lanceSchema.fields()) {
            fieldIds.put(f.getName(), f.getId());
        }
        root = VectorSchemaRoot.create(schema, allocator);
        SplittableRandom random = new SplittableRandom(20260527);
        for (FieldVector v : root.getFieldVectors()) {
            fillRandom(v, random);
        }
        root.setRowCount(ROWS);
    }

    @AfterAll
    static void close() {
        root.close();
        allocator.close();
    }

    @Test
    void everyTypeLanceEvaluatesAgreesRowForRow() {
        int checkedColumns = 0;
        for (FieldVector vector : root.getFieldVectors()) {
            ArrowType type = vector.getField().getType();
            if (!BucketSourceType.lanceCoreEvaluates(type)) {
                continue;
            }
            for (int numBuckets : BUCKET_COUNTS) {
                int[] ours = new int[ROWS];
                BucketAssigner.of(type, numBuckets).assign(vector, ours);
                int[] lance = lanceBuckets(vector.getName(), numBuckets);
                for (int row = 0; row < ROWS; row++) {
                    int r = row;
                    assertThat(ours[row])
                            .as(() -> vector.getName() + " row " + r + " value " + vector.getObject(r) + " over "
                                    + numBuckets + " buckets")
                            .isEqualTo(lance[row]);
                }
            }
            checkedColumns++;
        }
        assertThat(checkedColumns).isEqualTo(FIELDS.size() - 2);
    }

    @Test
    void lanceRejectsBinarySourcesThatWeAccept() {
        for (String name : List.of("binary", "large_binary")) {
            assertThatThrownBy(() -> lanceBuckets(name, 8))
                    .hasMessageContaining("Unsupported bucket sharding column type");
        }
    }

    private static int[] lanceBuckets(String column, int numBuckets) {
        ShardingField bucket = new ShardingField(
                "bucket",
                List.of(fieldIds.get(column)),
                "bucket",
                null,
                "int32",
                Map.of("num_buckets", Integer.toString(numBuckets)));
        VectorSchemaRoot single = new VectorSchemaRoot(List.of(root.getVector(column)));
        single.setRowCount(ROWS);
        int[] out = new int[ROWS];
        int row = 0;
        try (ArrowReader reader =
                ShardingEvaluator.evaluate(allocator, single, new ShardingSpec(1, List.of(bucket)), lanceSchema)) {
            while (reader.loadNextBatch()) {
                IntVector buckets = (IntVector) reader.getVectorSchemaRoot().getVector("bucket");
                for (int i = 0; i < buckets.getValueCount(); i++) {
                    out[row++] = buckets.get(i);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(row).isEqualTo(ROWS);
        return out;
    }

    private static Field field(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private static void fillRandom(FieldVector v, SplittableRandom random) {
        v.setInitialCapacity(ROWS);
        v.allocateNew();
        for (int row = 0; row < ROWS; row++) {
            if (random.nextInt(20) == 0) {
                if (v instanceof BaseVariableWidthVector) {
                    ((BaseVariableWidthVector) v).setNull(row);
                } else if (v instanceof BaseLargeVariableWidthVector) {
                    ((BaseLargeVariableWidthVector) v).setNull(row);
                }
                continue; // fixed width: validity bit stays 0
            }
            if (v instanceof BaseVariableWidthVector) {
                ((BaseVariableWidthVector) v).setSafe(row, randomBytes(v, random));
            } else if (v instanceof BaseLargeVariableWidthVector) {
                ((BaseLargeVariableWidthVector) v).setSafe(row, randomBytes(v, random));
            } else if (v instanceof BitVector) {
                ((BitVector) v).set(row, random.nextInt(2));
            } else {
                // Raw bits, so NaN payloads and negative zeros reach the buffer unchanged.
                writeRandomFixed(v, row, ((BaseFixedWidthVector) v).getTypeWidth(), random);
                BitVectorHelper.setBit(v.getValidityBuffer(), row);
            }
        }
        v.setValueCount(ROWS);
    }

    private static void writeRandomFixed(FieldVector v, int row, int width, SplittableRandom random) {
        ArrowType type = v.getField().getType();
        boolean isFloat = type.getTypeID() == ArrowType.ArrowTypeID.FloatingPoint;
        long bits = isFloat ? randomFloatBits(width, random) : randomIntegerBits(random);
        switch (width) {
            case 1:
                v.getDataBuffer().setByte(row, (byte) bits);
                break;
            case 2:
                v.getDataBuffer().setShort((long) row * 2, (short) bits);
                break;
            case 4:
                v.getDataBuffer().setInt((long) row * 4, (int) bits);
                break;
            case 8:
                v.getDataBuffer().setLong((long) row * 8, bits);
                break;
            default:
                throw new IllegalStateException("width " + width + " of " + type);
        }
    }

    private static long randomIntegerBits(SplittableRandom random) {
        switch (random.nextInt(8)) {
            case 0:
                return new long[] {
                            0,
                            1,
                            -1,
                            Long.MIN_VALUE,
                            Long.MAX_VALUE,
                            Integer.MIN_VALUE,
                            Integer.MAX_VALUE,
                            0xff,
                            0x80,
                            0xffff,
                            0x8000
                        }
                        [random.nextInt(11)];
            case 1:
                return random.nextInt(-1000, 1000);
            default:
                return random.nextLong();
        }
    }

    private static long randomFloatBits(int width, SplittableRandom random) {
        int pick = random.nextInt(10);
        if (width == 4) {
            switch (pick) {
                case 0:
                    return Float.floatToRawIntBits(-0.0f);
                case 1:
                    return 0;
                case 2:
                    return 0x7fc00000 | random.nextInt(1 << 22); // quiet NaNs with payloads
                case 3:
                    return 0xff800001 | random.nextInt(1 << 22); // negative NaNs
                case 4:
                    return Float.floatToRawIntBits(random.nextBoolean() ? Float.POSITIVE_INFINITY : Float.MIN_VALUE);
                default:
                    return random.nextInt();
            }
        }
        switch (pick) {
            case 0:
                return Double.doubleToRawLongBits(-0.0d);
            case 1:
                return 0;
            case 2:
                return 0x7ff8000000000000L | random.nextLong(1L << 51);
            case 3:
                return 0xfff0000000000001L | random.nextLong(1L << 51);
            case 4:
                return Double.doubleToRawLongBits(random.nextBoolean() ? Double.NEGATIVE_INFINITY : Double.MIN_VALUE);
            default:
                return random.nextLong();
        }
    }

    private static byte[] randomBytes(FieldVector v, SplittableRandom random) {
        int length = random.nextInt(14); // 0..13 characters: every tail length, several words
        ArrowType.ArrowTypeID id = v.getField().getType().getTypeID();
        if (id == ArrowType.ArrowTypeID.Utf8 || id == ArrowType.ArrowTypeID.LargeUtf8) {
            StringBuilder s = new StringBuilder();
            boolean ascii = random.nextBoolean();
            for (int i = 0; i < length; i++) {
                s.append(ascii ? CHARS[random.nextInt(6)] : CHARS[random.nextInt(CHARS.length)]);
            }
            return s.toString().getBytes(StandardCharsets.UTF_8);
        }
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
