package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.NestedChanges;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ROW, ARRAY of ROW, MAP and ARRAY columns: Row → RowData → Arrow (the mapped schema) → RowData,
 * both as row copies and as columns, with nulls at every level.
 */
class NestedRowDataRoundTripTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void nestedTypesMapToStructListAndMap() {
        Schema schema = FlinkArrowTypes.toArrowSchema(NestedChanges.rowType());
        assertThat(schema.findField("addr").getType()).isEqualTo(ArrowType.Struct.INSTANCE);
        assertThat(schema.findField("addr").getChildren())
                .extracting(Field::getName)
                .containsExactly("city", "zip");
        Field items = schema.findField("items");
        assertThat(items.getChildren().get(0).getType()).isEqualTo(ArrowType.Struct.INSTANCE);
        Field attrs = schema.findField("attrs");
        assertThat(attrs.getType()).isEqualTo(new ArrowType.Map(false));
        Field entry = attrs.getChildren().get(0);
        assertThat(entry.getChildren()).extracting(Field::getName).containsExactly("key", "value");
        assertThat(entry.getChildren().get(0).isNullable()).isFalse();
        assertThat(FlinkArrowTypes.toRowType(schema).copy(true).asSummaryString())
                .isEqualTo(NestedChanges.rowType()
                        .copy(true)
                        .asSummaryString()
                        .replace("MAP<STRING, INT>", "MAP<STRING NOT NULL, INT>"));
    }

    @Test
    void nestedValuesRoundTripWithNullsAtEveryLevel() {
        long seed = System.nanoTime();
        System.out.println("NestedRowDataRoundTripTest seed " + seed);
        List<Row> rows = new ArrayList<>(new NestedChanges(seed, 1_000, 400).changes());
        rows.removeIf(r -> r.getField(1) == null && r.getField(2) == null); // deletes carry no values
        RowType type = NestedChanges.rowType();
        Schema schema = FlinkArrowTypes.toArrowSchema(type);
        RowToRowData toInternal = RowToRowData.create(type);
        DataStructureConverter<Object, Object> toExternal =
                DataStructureConverters.getConverter(TypeConversions.fromLogicalToDataType(type));
        toExternal.open(getClass().getClassLoader());
        RowDataArrowWriter writer = RowDataArrowWriter.create(type, schema);
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            batch.allocateNew();
            for (int i = 0; i < rows.size(); i++) {
                writer.write(toInternal.convert(rows.get(i)), batch, i);
            }
            batch.setRowCount(rows.size());
            ArrowRowDataReader reader = ArrowRowDataReader.create(schema);
            VectorizedColumnBatch columns = reader.copyBatch(batch);
            for (int i = 0; i < rows.size(); i++) {
                Map<String, Object> expected = NestedChanges.plain(rows.get(i));
                RowData copy = reader.read(batch, i);
                assertThat(NestedChanges.plain((Row) toExternal.toExternal(copy)))
                        .isEqualTo(expected);
                RowData column = new ColumnarRowData(columns, i);
                assertThat(NestedChanges.plain((Row) toExternal.toExternal(column)))
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void nullMapKeysAndMultisetsAreRefusedNamingTheColumn() {
        RowType type = NestedChanges.rowType();
        RowDataArrowWriter writer = RowDataArrowWriter.create(type, FlinkArrowTypes.toArrowSchema(type));
        Map<String, Integer> attrs = new HashMap<>();
        attrs.put(null, 1);
        RowData row = RowToRowData.create(type).convert(Row.of(1L, null, null, null, null));
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(FlinkArrowTypes.toArrowSchema(type), allocator)) {
            writer.write(row, batch, 0); // nulls are fine
        }
        assertThatThrownBy(() -> RowToRowData.create(type).convert(Row.of(1L, null, null, attrs, null)))
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("attrs")
                .hasMessageContaining("map key is null");
        RowType multiset =
                RowType.of(new LogicalType[] {new MultisetType(VarCharType.STRING_TYPE)}, new String[] {"bag"});
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowSchema(multiset))
                .isInstanceOf(UnsupportedColumnTypeException.class)
                .hasMessageContaining("column 'bag'")
                .hasMessageContaining("MAP of element to INT count");
        RowType nested = RowType.of(
                new LogicalType[] {RowType.of(new LogicalType[] {new MultisetType(new IntType())}, new String[] {"m"})},
                new String[] {"r"});
        assertThatThrownBy(() -> FlinkArrowTypes.toArrowSchema(nested)).hasMessageContaining("column 'r.m'");
    }
}
