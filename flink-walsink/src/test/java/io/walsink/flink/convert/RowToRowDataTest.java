package io.walsink.flink.convert;

import static io.walsink.flink.convert.RowDataArrowRoundTripTest.decimal;
import static io.walsink.flink.convert.RowDataArrowRoundTripTest.ts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

class RowToRowDataTest {

    static final RowType TYPE = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new VarCharType(20),
                new DecimalType(10, 2),
                new DateType(),
                new TimeType(3),
                new TimestampType(9),
                new LocalZonedTimestampType(3),
                new VarBinaryType(8),
                new BooleanType(),
                new ArrayType(new FloatType(false)),
                new ArrayType(new ArrayType(new VarCharType(5)))
            },
            new String[] {"id", "name", "price", "day", "at", "ts", "instant", "bytes", "flag", "embedding", "tags"});

    @Test
    void externalValuesBecomeTheirInternalFormsAndTheKindIsKept() {
        Row row = Row.ofKind(
                RowKind.UPDATE_AFTER,
                7L,
                "Zoë",
                new BigDecimal("12.5"),
                LocalDate.parse("1969-07-20"),
                LocalTime.parse("20:17:40.123"),
                LocalDateTime.parse("1969-07-20T20:17:40.123456789"),
                Instant.parse("2000-01-01T00:00:00.001Z"),
                new byte[] {1, 2},
                true,
                new float[] {0.5f, -1f},
                List.of(new String[] {"a", null}, List.of()));

        GenericRowData data = RowToRowData.create(TYPE).convert(row);

        assertThat(data.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(data.getLong(0)).isEqualTo(7L);
        assertThat(data.getString(1)).isEqualTo(StringData.fromString("Zoë"));
        assertThat(data.getDecimal(2, 10, 2)).isEqualTo(decimal("12.50", 10, 2));
        assertThat(data.getInt(3)).isEqualTo(-165);
        assertThat(data.getInt(4)).isEqualTo(73_060_123);
        assertThat(data.getTimestamp(5, 9)).isEqualTo(ts("1969-07-20T20:17:40.123456789"));
        assertThat(data.getTimestamp(6, 3)).isEqualTo(TimestampData.fromEpochMillis(946_684_800_001L));
        assertThat(data.getBinary(7)).containsExactly(1, 2);
        assertThat(data.getBoolean(8)).isTrue();
        assertThat(data.getArray(9).toFloatArray()).containsExactly(0.5f, -1f);
        GenericArrayData tags = (GenericArrayData) data.getArray(10);
        assertThat(tags.size()).isEqualTo(2);
        assertThat(((GenericArrayData) tags.getArray(0)).toObjectArray())
                .isEqualTo(new Object[] {StringData.fromString("a"), null});
        assertThat(tags.getArray(1).size()).isZero();
    }

    @Test
    void namedRowsAreMatchedByNameAndNullsStayNull() {
        RowType type =
                RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(5)}, new String[] {"id", "name"});
        Row named = Row.withNames(RowKind.DELETE);
        named.setField("name", null);
        named.setField("id", 3L);

        GenericRowData data = RowToRowData.create(type).convert(named);

        assertThat(data).isEqualTo(GenericRowData.ofKind(RowKind.DELETE, 3L, null));
    }

    @Test
    void namedRowsMustNameExactlyTheColumns() {
        RowType type =
                RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(5)}, new String[] {"id", "name"});
        RowToRowData converter = RowToRowData.create(type);
        Row missing = Row.withNames();
        missing.setField("id", 1L);
        Row extra = Row.withNames();
        extra.setField("id", 1L);
        extra.setField("name", "x");
        extra.setField("nmae", "typo");

        assertThatThrownBy(() -> converter.convert(missing))
                .hasMessageContaining("column 'name'")
                .hasMessageContaining("missing");
        assertThatThrownBy(() -> converter.convert(extra)).hasMessageContaining("column 'nmae'");
        assertThatThrownBy(() -> converter.convert(Row.of(1L))).hasMessageContaining("1 fields");
    }

    @Test
    void wrongClassesAndUnfitDecimalsAreRefusedNamingTheColumn() {
        RowToRowData converter = RowToRowData.create(TYPE);
        Object[] good = {
            1L,
            "n",
            new BigDecimal("1"),
            LocalDate.EPOCH,
            LocalTime.MIDNIGHT,
            LocalDateTime.MIN,
            Instant.EPOCH,
            new byte[0],
            false,
            new float[0],
            List.of()
        };

        assertThatThrownBy(() -> converter.convert(with(good, 0, 1))) // Integer for BIGINT
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("column 'id'")
                .hasMessageContaining("java.lang.Long")
                .hasMessageContaining("Integer");
        assertThatThrownBy(() -> converter.convert(with(good, 2, new BigDecimal("1.005"))))
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("column 'price'")
                .hasMessageContaining("rounded");
        assertThatThrownBy(() -> converter.convert(with(good, 2, new BigDecimal("123456789"))))
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("column 'price'")
                .hasMessageContaining("does not fit");
        assertThatThrownBy(() -> converter.convert(with(good, 9, new double[] {1})))
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("column 'embedding'");
        assertThatThrownBy(() -> converter.convert(with(good, 10, List.of(List.of(1)))))
                .isInstanceOf(ColumnValueException.class)
                .hasMessageContaining("column 'tags[][]'");
        assertThat(converter.convert(Row.of(good)).getArity()).isEqualTo(11);
    }

    @Test
    void unsupportedTypesAreRefusedWhenBuilt() {
        RowType type = RowType.of(new LogicalType[] {new MultisetType(new IntType())}, new String[] {"m"});

        assertThatThrownBy(() -> RowToRowData.create(type))
                .isInstanceOf(UnsupportedColumnTypeException.class)
                .hasMessageContaining("column 'm'");
    }

    private static Row with(Object[] values, int index, Object value) {
        Object[] copy = Arrays.copyOf(values, values.length);
        copy[index] = value;
        return Row.of(copy);
    }
}
