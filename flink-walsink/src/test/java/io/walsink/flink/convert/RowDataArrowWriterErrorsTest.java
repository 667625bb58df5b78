package io.walsink.flink.convert;

import static io.walsink.flink.convert.RowDataArrowRoundTripTest.decimal;
import static io.walsink.flink.convert.RowDataArrowRoundTripTest.ts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.testing.AllocatorExtension;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Build-time schema checks and per-value failures, each naming the column. */
class RowDataArrowWriterErrorsTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static RowType row(String[] names, LogicalType... types) {
        return RowType.of(types, names);
    }

    private static final Schema ID_AND_PRICE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("price", new ArrowType.Decimal(5, 2, 128))));

    @Test
    void aTableColumnMissingFromTheRowIsNamed() {
        assertThatThrownBy(() ->
                        RowDataArrowWriter.create(row(new String[] {"price"}, new DecimalType(5, 2)), ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'id'")
                .hasMessageContaining("missing from the Flink row");
        // A nullable one is missing from the row in place of another: a rename, not an added column.
        assertThatThrownBy(() -> RowDataArrowWriter.create(
                        row(new String[] {"id", "cost"}, new BigIntType(false), new DecimalType(5, 2)), ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'price'")
                .hasMessageContaining("missing from the Flink row");
    }

    @Test
    void aNullableTableColumnTheRowsDoNotHaveIsWrittenAsNull() {
        RowDataArrowWriter writer =
                RowDataArrowWriter.create(row(new String[] {"id"}, new BigIntType(false)), ID_AND_PRICE);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot target = VectorSchemaRoot.create(ID_AND_PRICE, allocator)) {
            target.allocateNew();
            writer.write(GenericRowData.of(7L), target, 0);
            writer.write(GenericRowData.of(8L), target, 1);
            target.setRowCount(2);
            assertThat(((BigIntVector) target.getVector("id")).get(1)).isEqualTo(8L);
            assertThat(target.getVector("price").isNull(0)).isTrue();
            assertThat(target.getVector("price").isNull(1)).isTrue();
        }
    }

    @Test
    void aRowFieldMissingFromTheTableIsNamed() {
        RowType flink =
                row(new String[] {"id", "price", "note"}, new BigIntType(false), new DecimalType(5, 2), new IntType());

        assertThatThrownBy(() -> RowDataArrowWriter.create(flink, ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'note'")
                .hasMessageContaining("not in the table");
    }

    @Test
    void aWrongTypeIsNamedWithBothTypes() {
        RowType flink = row(new String[] {"id", "price"}, new IntType(false), new DecimalType(5, 2));

        assertThatThrownBy(() -> RowDataArrowWriter.create(flink, ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'id'")
                .hasMessageContaining("INT NOT NULL")
                .hasMessageContaining("Int(64, true)");
    }

    @Test
    void narrowingDecimalsAndTimestampsAreRefusedWhenBuilt() {
        assertThatThrownBy(() -> RowDataArrowWriter.create(
                        row(new String[] {"id", "price"}, new BigIntType(false), new DecimalType(6, 2)), ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'price'");
        assertThatThrownBy(() -> RowDataArrowWriter.create(
                        row(new String[] {"id", "price"}, new BigIntType(false), new DecimalType(5, 3)), ID_AND_PRICE))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'price'");

        Schema millis = new Schema(List.of(Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null))));
        assertThatThrownBy(() -> RowDataArrowWriter.create(row(new String[] {"ts"}, new TimestampType(6)), millis))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'ts'")
                .hasMessageContaining("6 fractional digits");
        assertThatThrownBy(() ->
                        RowDataArrowWriter.create(row(new String[] {"ts"}, new LocalZonedTimestampType(3)), millis))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'ts'");
    }

    @Test
    void aMismatchInsideAnArrayNamesTheElement() {
        Schema table = new Schema(List.of(new Field(
                "tags",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(Field.nullable("item", new ArrowType.Int(64, true))))));

        assertThatThrownBy(() ->
                        RowDataArrowWriter.create(row(new String[] {"tags"}, new ArrayType(new IntType())), table))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'tags[]'");
    }

    @Test
    void aMapWhoseKeysDifferFromTheTablesIsRefusedNamingItsKeys() {
        Field map = io.walsink.testing.ArrowRows.mapField(
                "attrs", new ArrowType.Int(32, true), new ArrowType.Int(32, true));

        assertThatThrownBy(() -> RowDataArrowWriter.create(
                        row(new String[] {"attrs"}, new MapType(new BigIntType(false), new IntType())),
                        new Schema(List.of(map))))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("attrs{}");
        assertThat(RowDataArrowWriter.create(
                                row(new String[] {"attrs"}, new MapType(new IntType(false), new IntType())),
                                new Schema(List.of(map)))
                        .schema()
                        .getFields())
                .containsExactly(map);
    }

    @Test
    void aRowWhoseFieldsDifferFromTheTablesStructIsRefusedNamingThem() {
        Field struct = new Field(
                "addr",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(Field.nullable("city", ArrowType.Utf8.INSTANCE)));

        assertThatThrownBy(() -> RowDataArrowWriter.create(
                        row(new String[] {"addr"}, RowType.of(new LogicalType[] {new IntType()}, new String[] {"town"
                        })),
                        new Schema(List.of(struct))))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'addr'")
                .hasMessageContaining("[town]")
                .hasMessageContaining("[city]");
    }

    @Test
    void decimalsThatDoNotFitAreRefusedNamingColumnAndRow() {
        RowType flink = row(new String[] {"id", "price"}, new BigIntType(false), new DecimalType(5, 2));
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, ID_AND_PRICE);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(ID_AND_PRICE, allocator)) {
            writer.write(GenericRowData.of(1L, decimal("999.99", 5, 2)), root, 0);

            // GenericRowData may carry a DecimalData of any precision: the value is what counts.
            assertThatThrownBy(() -> writer.write(GenericRowData.of(2L, decimal("1000.0", 6, 1)), root, 1))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'price'")
                    .hasMessageContaining("row 1")
                    .hasMessageContaining("does not fit DECIMAL(5, 2)");
            assertThatThrownBy(() -> writer.write(GenericRowData.of(2L, decimal("1.234", 4, 3)), root, 1))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'price'")
                    .hasMessageContaining("rounded");
            assertThatThrownBy(() ->
                            writer.write(GenericRowData.of(2L, DecimalData.fromUnscaledLong(100_000, 5, 2)), root, 1))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("does not fit");

            writer.write(GenericRowData.of(3L, decimal("-1.5", 2, 1)), root, 1); // rescaled exactly: -1.50
            root.setRowCount(2);
            assertThat(ArrowRowDataReader.create(ID_AND_PRICE)
                            .read(root, 1)
                            .getDecimal(1, 5, 2)
                            .toBigDecimal())
                    .isEqualByComparingTo("-1.50");
        }
    }

    @Test
    void aVectorOfTheWrongLengthIsRefusedNamingColumnRowAndLength() {
        RowType flink =
                row(new String[] {"id", "embedding"}, new BigIntType(false), new ArrayType(new FloatType(false)));
        Schema table = FlinkArrowTypes.toArrowSchema(flink, Map.of("embedding", 3));
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            writer.write(GenericRowData.of(1L, new GenericArrayData(new float[] {1, 2, 3})), root, 0);

            assertThatThrownBy(() ->
                            writer.write(GenericRowData.of(2L, new GenericArrayData(new float[] {1, 2})), root, 1))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'embedding'")
                    .hasMessageContaining("row 1")
                    .hasMessageContaining("has 2 elements")
                    .hasMessageContaining("fixed-size list of 3");
        }
    }

    @Test
    void nullsInNotNullColumnsAndElementsAreRefused() {
        RowType flink = row(new String[] {"id", "embedding"}, new BigIntType(), new ArrayType(new FloatType()));
        Schema table = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                new Field(
                        "embedding",
                        FieldType.nullable(new ArrowType.FixedSizeList(2)),
                        List.of(Field.notNullable(
                                "item",
                                new ArrowType.FloatingPoint(
                                        org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE))))));
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            assertThatThrownBy(() -> writer.write(GenericRowData.of(null, null), root, 0))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'id'")
                    .hasMessageContaining("row 0")
                    .hasMessageContaining("NOT NULL");
            assertThatThrownBy(() ->
                            writer.write(GenericRowData.of(1L, new GenericArrayData(new Object[] {1f, null})), root, 0))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'embedding[]'");
        }
    }

    @Test
    void timestampsBeyondTheUnitsRangeAndBinariesOfTheWrongWidthAreRefused() {
        RowType flink = row(new String[] {"ts", "uuid"}, new TimestampType(9), new VarBinaryType(16));
        Schema table = new Schema(List.of(
                Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                Field.nullable("uuid", new ArrowType.FixedSizeBinary(16))));
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, table);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            assertThatThrownBy(
                            () -> writer.write(GenericRowData.of(ts("2262-04-11T23:47:16.854775808"), null), root, 0))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'ts'")
                    .hasMessageContaining("outside the range");
            assertThatThrownBy(() -> writer.write(GenericRowData.of(null, new byte[15]), root, 0))
                    .isInstanceOf(ColumnValueException.class)
                    .hasMessageContaining("column 'uuid'")
                    .hasMessageContaining("15 bytes");
        }
    }

    @Test
    void aTargetWithAnotherSchemaIsRefused() {
        RowType flink = row(new String[] {"id", "price"}, new BigIntType(false), new DecimalType(5, 2));
        RowDataArrowWriter writer = RowDataArrowWriter.create(flink, ID_AND_PRICE);
        Schema other = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("price", new ArrowType.Decimal(6, 2, 128))));
        try (VectorSchemaRoot root = VectorSchemaRoot.create(other, allocator)) {
            assertThatThrownBy(() -> writer.write(GenericRowData.of(1L, null), root, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not the table schema");
        }
    }
}
