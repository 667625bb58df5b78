package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.testing.AllocatorExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
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
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** RowData → Arrow (table schema from the type mapping) → RowData gives the same rows back. */
class RowDataArrowRoundTripTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    static final String[] NAMES = {
        "id",
        "b",
        "i8",
        "i16",
        "i32",
        "i64",
        "f",
        "d",
        "dec38",
        "dec5",
        "s",
        "bin",
        "day",
        "t0",
        "t3",
        "t9",
        "ts0",
        "ts3",
        "ts6",
        "ts9",
        "ltz6",
        "ints",
        "nested",
        "embedding",
        "decs",
        "stamps"
    };

    static final RowType ALL_TYPES = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new BooleanType(),
                new TinyIntType(),
                new SmallIntType(),
                new IntType(),
                new BigIntType(),
                new FloatType(),
                new DoubleType(),
                new DecimalType(38, 10),
                new DecimalType(5, 2),
                new VarCharType(VarCharType.MAX_LENGTH),
                new VarBinaryType(VarBinaryType.MAX_LENGTH),
                new DateType(),
                new TimeType(0),
                new TimeType(3),
                new TimeType(9),
                new TimestampType(0),
                new TimestampType(3),
                new TimestampType(6),
                new TimestampType(9),
                new LocalZonedTimestampType(6),
                new ArrayType(new IntType()),
                new ArrayType(new ArrayType(new VarCharType(VarCharType.MAX_LENGTH))),
                new ArrayType(new FloatType(false)),
                new ArrayType(new DecimalType(10, 2)),
                new ArrayType(new TimestampType(9))
            },
            NAMES);

    static final Map<String, Integer> VECTORS = Map.of("embedding", 3);

    @Test
    void everyTypeRoundTripsWithExtremesAndNulls() {
        List<GenericRowData> rows = List.of(maxima(), minima(), nullsExceptKey(), emptyAndNullElements());
        Schema schema = FlinkArrowTypes.toArrowSchema(ALL_TYPES, VECTORS);

        List<GenericRowData> back = roundTrip(ALL_TYPES, schema, rows);

        assertThat(back).containsExactlyElementsOf(rows);
        assertThat(ArrowRowDataReader.create(schema).rowType()).isEqualTo(ALL_TYPES);
    }

    @Test
    void manyRowsGrowTheVectorsAndStillRoundTrip() {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            GenericRowData r = i % 7 == 0 ? nullsExceptKey() : i % 2 == 0 ? maxima() : emptyAndNullElements();
            r.setField(0, (long) i);
            rows.add(r);
        }

        List<GenericRowData> back = roundTrip(ALL_TYPES, FlinkArrowTypes.toArrowSchema(ALL_TYPES, VECTORS), rows);

        assertThat(back).containsExactlyElementsOf(rows);
    }

    @Test
    void widerTableColumnsAcceptTheirFlinkTypesLosslessly() {
        RowType flink = RowType.of(
                new LogicalType[] {
                    new VarCharType(10),
                    new DateType(),
                    new DecimalType(10, 2),
                    new TimestampType(3),
                    new TimeType(3),
                    new VarBinaryType(4),
                    new LocalZonedTimestampType(3),
                    new VarBinaryType(10)
                },
                new String[] {"s", "day", "price", "ts", "t", "uuid", "at", "blob"});
        Schema table = new Schema(List.of(
                Field.nullable("s", ArrowType.LargeUtf8.INSTANCE),
                Field.nullable("day", new ArrowType.Date(DateUnit.MILLISECOND)),
                Field.nullable("price", new ArrowType.Decimal(20, 4, 128)),
                Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                Field.nullable("t", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                Field.nullable("uuid", new ArrowType.FixedSizeBinary(4)),
                Field.nullable("at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Berlin")),
                Field.nullable("blob", ArrowType.LargeBinary.INSTANCE)));
        TimestampData ts = TimestampData.fromLocalDateTime(LocalDateTime.parse("1965-03-01T10:15:30.123"));
        GenericRowData row = GenericRowData.of(
                StringData.fromString("ünï"),
                (int) LocalDate.parse("1960-02-29").toEpochDay(),
                DecimalData.fromBigDecimal(new BigDecimal("-12345678.91"), 10, 2),
                ts,
                45_296_789,
                new byte[] {1, 2, 3, 4},
                TimestampData.fromInstant(Instant.parse("2024-02-29T12:00:00.001Z")),
                new byte[0]);

        GenericRowData back = roundTrip(flink, table, List.of(row)).get(0);

        assertThat(back.getString(0).toString()).isEqualTo("ünï");
        assertThat(back.getInt(1)).isEqualTo(row.getInt(1));
        assertThat(back.getDecimal(2, 20, 4).toBigDecimal()).isEqualTo(new BigDecimal("-12345678.9100"));
        assertThat(back.getTimestamp(3, 9)).isEqualTo(ts);
        assertThat(back.getInt(4)).isEqualTo(45_296_789);
        assertThat(back.getBinary(5)).containsExactly(1, 2, 3, 4);
        assertThat(back.getTimestamp(6, 6).toInstant()).isEqualTo(Instant.parse("2024-02-29T12:00:00.001Z"));
        assertThat(back.getBinary(7)).isEmpty();
    }

    @Test
    void columnsAreMatchedByNameWhateverTheRowOrder() {
        RowType flink =
                RowType.of(new LogicalType[] {new VarCharType(5), new BigIntType(false)}, new String[] {"name", "id"});
        Schema table = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

        GenericRowData back = roundTrip(flink, table, List.of(GenericRowData.of(StringData.fromString("x"), 7L)))
                .get(0);

        assertThat(back).isEqualTo(GenericRowData.of(7L, StringData.fromString("x")));
    }

    private List<GenericRowData> roundTrip(RowType rowType, Schema schema, List<? extends RowData> rows) {
        RowDataArrowWriter writer = RowDataArrowWriter.create(rowType, schema);
        ArrowRowDataReader reader = ArrowRowDataReader.create(schema);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            for (int i = 0; i < rows.size(); i++) {
                writer.write(rows.get(i), root, i);
            }
            root.setRowCount(rows.size());
            List<GenericRowData> back = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                back.add(reader.read(root, i));
            }
            return back;
        }
    }

    private static GenericRowData maxima() {
        return GenericRowData.of(
                Long.MAX_VALUE,
                true,
                Byte.MAX_VALUE,
                Short.MAX_VALUE,
                Integer.MAX_VALUE,
                Long.MAX_VALUE,
                Float.MAX_VALUE,
                Double.MAX_VALUE,
                decimal("9999999999999999999999999999.9999999999", 38, 10),
                decimal("999.99", 5, 2),
                StringData.fromString("héllo wörld ✓ 日本語 😀"),
                new byte[] {0, -1, 127, -128},
                (int) LocalDate.of(9999, 12, 31).toEpochDay(),
                86_399_000,
                86_399_999,
                86_399_999,
                ts("9999-12-31T23:59:59"),
                ts("9999-12-31T23:59:59.999"),
                ts("9999-12-31T23:59:59.999999"),
                ts("2262-04-11T23:47:16.854775807"), // the last nanosecond a 64-bit count reaches
                TimestampData.fromInstant(Instant.parse("9999-12-31T23:59:59.999999Z")),
                new GenericArrayData(new Object[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE}),
                new GenericArrayData(new Object[] {
                    new GenericArrayData(new Object[] {StringData.fromString("a"), StringData.fromString("ß")})
                }),
                new GenericArrayData(new Object[] {1.5f, -0.0f, Float.NaN}),
                new GenericArrayData(new Object[] {decimal("99999999.99", 10, 2), decimal("-0.01", 10, 2)}),
                new GenericArrayData(new Object[] {ts("1969-12-31T23:59:59.999999999")}));
    }

    private static GenericRowData minima() {
        return GenericRowData.of(
                Long.MIN_VALUE,
                false,
                Byte.MIN_VALUE,
                Short.MIN_VALUE,
                Integer.MIN_VALUE,
                Long.MIN_VALUE,
                -Float.MAX_VALUE,
                Double.MIN_VALUE,
                decimal("-9999999999999999999999999999.9999999999", 38, 10),
                decimal("-999.99", 5, 2),
                StringData.fromString(""),
                new byte[0],
                (int) LocalDate.of(1, 1, 1).toEpochDay(),
                0,
                0,
                1,
                ts("0001-01-01T00:00:00"),
                ts("1969-12-31T23:59:59.999"),
                ts("1900-01-01T00:00:00.000001"),
                ts("1677-09-21T00:12:43.145224192"), // the first nanosecond a 64-bit count reaches
                TimestampData.fromInstant(Instant.parse("0001-01-01T00:00:00.000001Z")),
                new GenericArrayData(new Object[] {-1}),
                new GenericArrayData(new Object[] {new GenericArrayData(new Object[0])}),
                new GenericArrayData(new Object[] {Float.MIN_VALUE, -Float.MAX_VALUE, Float.NEGATIVE_INFINITY}),
                new GenericArrayData(new Object[] {decimal("-99999999.99", 10, 2)}),
                new GenericArrayData(new Object[] {ts("1969-12-31T23:59:59.000000001"), ts("1970-01-01T00:00:00")}));
    }

    private static GenericRowData nullsExceptKey() {
        GenericRowData row = new GenericRowData(RowKind.INSERT, NAMES.length);
        row.setField(0, 42L);
        return row;
    }

    private static GenericRowData emptyAndNullElements() {
        GenericRowData row = maxima();
        row.setField(21, new GenericArrayData(new Object[0]));
        row.setField(22, new GenericArrayData(new Object[] {
            new GenericArrayData(new Object[] {StringData.fromString("x"), null}),
            null,
            new GenericArrayData(new Object[0])
        }));
        row.setField(23, null);
        row.setField(24, new GenericArrayData(new Object[] {null, decimal("0.00", 10, 2)}));
        row.setField(25, new GenericArrayData(new Object[] {null}));
        return row;
    }

    static DecimalData decimal(String value, int precision, int scale) {
        return DecimalData.fromBigDecimal(new BigDecimal(value), precision, scale);
    }

    static TimestampData ts(String localDateTime) {
        return TimestampData.fromLocalDateTime(LocalDateTime.parse(localDateTime));
    }

    @Test
    void stringsAreWrittenAsTheirUtf8Bytes() {
        RowType flink = RowType.of(new LogicalType[] {new VarCharType(20)}, new String[] {"s"});
        Schema table = FlinkArrowTypes.toArrowSchema(flink);
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            writer.write(GenericRowData.of(StringData.fromString("€😀")), root, 0);
            root.setRowCount(1);

            assertThat(((org.apache.arrow.vector.VarCharVector) root.getVector(0)).get(0))
                    .isEqualTo("€😀".getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * Strings of binary rows (what a shuffle delivers) are copied from the row's memory: at an
     * offset inside one segment, and across two segments (the fallback).
     */
    @Test
    void stringsOfBinaryRowsAreCopiedFromTheRowsMemory() {
        RowType flink = RowType.of(
                new LogicalType[] {new BigIntType(), new VarCharType(40), new VarCharType(40)},
                new String[] {"id", "a", "b"});
        Schema table = FlinkArrowTypes.toArrowSchema(flink);
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        RowDataSerializer serializer = new RowDataSerializer(flink);
        byte[] split = "split across two segments".getBytes(StandardCharsets.UTF_8);
        MemorySegment[] segments = {
            MemorySegmentFactory.wrap(java.util.Arrays.copyOfRange(split, 0, 10)),
            MemorySegmentFactory.wrap(java.util.Arrays.copyOfRange(split, 10, split.length))
        };
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            writer.write(
                    serializer.toBinaryRow(GenericRowData.of(
                            1L, StringData.fromString("short"), StringData.fromString("a longer value, €"))),
                    root,
                    0);
            writer.write(
                    GenericRowData.of(
                            2L, BinaryStringData.fromAddress(segments, 0, split.length), StringData.fromString("")),
                    root,
                    1);
            writer.write(serializer.toBinaryRow(GenericRowData.of(3L, null, StringData.fromString("x"))), root, 2);
            root.setRowCount(3);

            assertThat(root.contentToTSVString())
                    .isEqualTo("id\ta\tb\n" + "1\tshort\ta longer value, €\n" + "2\tsplit across two segments\t\n"
                            + "3\tnull\tx\n");
        }
    }

    @Test
    void timestampsAreStoredAsExactCountsOfTheArrowUnit() {
        RowType flink = RowType.of(
                new LogicalType[] {
                    new TimestampType(0), new TimestampType(3), new TimestampType(6), new TimestampType(9)
                },
                new String[] {"s", "ms", "us", "ns"});
        Schema table = FlinkArrowTypes.toArrowSchema(flink);
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        TimestampData beforeEpoch = ts("1969-12-31T23:59:58.123456789");
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            writer.write(
                    GenericRowData.of(
                            ts("1969-12-31T23:59:58"),
                            ts("1969-12-31T23:59:58.123"),
                            ts("1969-12-31T23:59:58.123456"),
                            beforeEpoch),
                    root,
                    0);
            root.setRowCount(1);

            assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector(0)).get(0))
                    .isEqualTo(-2L);
            assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector(1)).get(0))
                    .isEqualTo(-1_877L);
            assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector(2)).get(0))
                    .isEqualTo(-1_876_544L);
            assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector(3)).get(0))
                    .isEqualTo(-1_876_543_211L);
        }
    }
}
