package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

class PojoToRowDataTest {

    static final RowType ORDERS = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new VarCharType(10),
                new DecimalType(10, 2),
                new LocalZonedTimestampType(3),
                new ArrayType(new FloatType(false))
            },
            new String[] {"order_id", "customer", "total", "placed_at", "embedding"});

    record Order(long orderId, String customer, BigDecimal total, Instant placedAt, float[] embedding) {}

    public static class OrderBean {
        public String customer = "bean";
        private final long orderId = 9;

        public long getOrderId() {
            return orderId;
        }

        public BigDecimal getTotal() {
            return null;
        }

        public Instant getPlacedAt() {
            return Instant.EPOCH;
        }

        public List<Float> getEmbedding() {
            return List.of(1f, 2f);
        }

        public String getUnrelated() {
            return "ignored";
        }
    }

    record WrongTotal(long orderId, String customer, double total, Instant placedAt, float[] embedding) {}

    record MissingCustomer(long orderId, BigDecimal total, Instant placedAt, float[] embedding) {}

    record WrongElements(long orderId, String customer, BigDecimal total, Instant placedAt, List<Double> embedding) {}

    @Test
    void recordComponentsAreMatchedToColumnsIgnoringCaseAndUnderscores() {
        PojoToRowData<Order> converter = PojoToRowData.create(Order.class, ORDERS);

        GenericRowData row = converter.convert(
                new Order(5, "Ann", new BigDecimal("3.5"), Instant.ofEpochMilli(-1), new float[] {0.25f}),
                RowKind.DELETE);

        assertThat(row.getRowKind()).isEqualTo(RowKind.DELETE);
        assertThat(row.getLong(0)).isEqualTo(5L);
        assertThat(row.getString(1)).isEqualTo(StringData.fromString("Ann"));
        assertThat(row.getDecimal(2, 10, 2).toBigDecimal()).isEqualTo(new BigDecimal("3.50"));
        assertThat(row.getTimestamp(3, 3)).isEqualTo(TimestampData.fromEpochMillis(-1));
        assertThat(row.getArray(4).toFloatArray()).containsExactly(0.25f);
        assertThat(converter.convert(new Order(1, null, null, null, null)).isNullAt(1))
                .isTrue();
    }

    @Test
    void beansAreReadThroughGettersAndPublicFields() {
        GenericRowData row = PojoToRowData.create(OrderBean.class, ORDERS).convert(new OrderBean());

        assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
        assertThat(row.getLong(0)).isEqualTo(9L);
        assertThat(row.getString(1)).isEqualTo(StringData.fromString("bean"));
        assertThat(row.isNullAt(2)).isTrue();
        assertThat(row.getArray(4).getFloat(1)).isEqualTo(2f);
    }

    @Test
    void incompatibleAndMissingPropertiesAreRefusedWhenBuilt() {
        assertThatThrownBy(() -> PojoToRowData.create(WrongTotal.class, ORDERS))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'total'")
                .hasMessageContaining("double")
                .hasMessageContaining("java.math.BigDecimal");
        assertThatThrownBy(() -> PojoToRowData.create(MissingCustomer.class, ORDERS))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'customer'")
                .hasMessageContaining("no field or getter");
        assertThatThrownBy(() -> PojoToRowData.create(WrongElements.class, ORDERS))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("column 'embedding'")
                .hasMessageContaining("List<java.lang.Double>");
    }

    @Test
    void recordsGoToTheTableThroughTheWriter() {
        Schema table = FlinkArrowTypes.toArrowSchema(ORDERS, Map.of("embedding", 2));
        PojoToRowData<Order> converter = PojoToRowData.forTable(Order.class, table);
        RowDataArrowWriter writer = RowDataArrowWriter.create(converter.rowType(), table);
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(table, allocator)) {
            writer.write(
                    converter.convert(new Order(1, "a", BigDecimal.TEN, Instant.EPOCH, new float[] {1, 2})), root, 0);
            assertThatThrownBy(() -> writer.write(
                            converter.convert(new Order(2, "b", BigDecimal.ONE, Instant.EPOCH, new float[] {1})),
                            root,
                            1))
                    .hasMessageContaining("column 'embedding'")
                    .hasMessageContaining("has 1 elements");
            root.setRowCount(1);

            assertThat(root.contentToTSVString()).contains("[1.0,2.0]").contains("10.00");
        }
    }

    record Address(String city, Integer zip) {}

    record Item(String sku, Integer qty) {}

    record Customer(long id, Address addr, List<Item> items, Map<String, Integer> attrs, String[] tags) {}

    @Test
    void nestedRecordsListsOfRecordsAndMapsAreConverted() {
        RowType type = io.walsink.testing.NestedChanges.rowType();
        PojoToRowData<Customer> converter = PojoToRowData.create(Customer.class, type);
        java.util.HashMap<String, Integer> attrs = new java.util.HashMap<>();
        attrs.put("k", null);
        Customer full = new Customer(
                7L, new Address(null, 12), java.util.Arrays.asList(new Item("a", 1), null), attrs, new String[] {"x"});

        GenericRowData row = converter.convert(full);
        assertThat(row.getRow(1, 2).isNullAt(0)).isTrue();
        assertThat(row.getRow(1, 2).getInt(1)).isEqualTo(12);
        assertThat(row.getArray(2).getRow(0, 2).getString(0)).isEqualTo(StringData.fromString("a"));
        assertThat(row.getArray(2).isNullAt(1)).isTrue();
        assertThat(row.getMap(3).keyArray().getString(0)).isEqualTo(StringData.fromString("k"));
        assertThat(row.getMap(3).valueArray().isNullAt(0)).isTrue();
        GenericRowData nulls = converter.convert(new Customer(8L, null, null, null, null));
        assertThat(List.of(nulls.isNullAt(1), nulls.isNullAt(2), nulls.isNullAt(3), nulls.isNullAt(4)))
                .containsOnly(true);
    }

    record WrongAddress(String town) {}

    record BadCustomer(long id, WrongAddress addr, List<Item> items, Map<String, Integer> attrs, String[] tags) {}

    @Test
    void aNestedRecordWithoutAFieldIsRefusedNamingItsPath() {
        assertThatThrownBy(() -> PojoToRowData.create(BadCustomer.class, io.walsink.testing.NestedChanges.rowType()))
                .isInstanceOf(SchemaMismatchException.class)
                .hasMessageContaining("addr.city");
    }
}
