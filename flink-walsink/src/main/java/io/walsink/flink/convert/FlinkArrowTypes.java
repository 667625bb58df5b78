package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * The column type mapping between Flink SQL types and Arrow, both directions.
 *
 * <p>Flink to Arrow (what a new table gets):
 * <pre>
 * BOOLEAN                  Bool
 * TINYINT/SMALLINT/INT/BIGINT  Int(8/16/32/64, signed)
 * FLOAT / DOUBLE           FloatingPoint(SINGLE / DOUBLE)
 * DECIMAL(p, s)            Decimal(p, s, 128)
 * CHAR/VARCHAR/STRING      Utf8
 * BINARY/VARBINARY/BYTES   Binary
 * DATE                     Date(DAY)
 * TIME(p)                  Time(SECOND, 32) p=0; Time(MILLISECOND, 32) p<=3;
 *                          Time(MICROSECOND, 64) p<=6; Time(NANOSECOND, 64) p<=9
 * TIMESTAMP(p)             Timestamp(unit as for TIME, null)
 * TIMESTAMP_LTZ(p)         Timestamp(unit as for TIME, "UTC")
 * ARRAY&lt;T&gt;                 List&lt;item: T&gt;, or FixedSizeList(n)&lt;item: T&gt; when declared
 * ROW&lt;a A, b B&gt;            Struct&lt;a: A, b: B&gt;
 * MAP&lt;K, V&gt;                Map&lt;entries: Struct&lt;key: K not null, value: V&gt;&gt; (Lance file format 2.2)
 * </pre>
 * TIME keeps its precision in the Arrow unit so that the type round-trips, although Flink's
 * RowData holds TIME as millis: sub-millisecond digits written from Flink are always zero and are
 * dropped when read. Nullability is carried over both ways, but a map's keys are never null.
 * Everything else (MULTISET, structured, RAW, INTERVAL, TIMESTAMP WITH TIME ZONE, VARIANT, ...)
 * is refused.
 *
 * <p>Arrow to Flink (reading a table) also accepts LargeUtf8 (STRING), LargeBinary (BYTES),
 * FixedSizeBinary(n) (BINARY(n)), Date(MILLISECOND) (DATE), any Timestamp zone (TIMESTAMP_LTZ:
 * the stored value is an instant) and FixedSizeList (ARRAY, Flink has no fixed-size array).
 * Unsigned integers, half floats, 256-bit decimals, unions and large lists are refused.
 */
@Internal
public final class FlinkArrowTypes {

    /** Arrow's conventional name for a list's element field (pyarrow and Lance use it). */
    public static final String LIST_ELEMENT_NAME = "item";

    static final String UTC = "UTC";

    private FlinkArrowTypes() {}

    public static Schema toArrowSchema(RowType rowType) {
        return toArrowSchema(rowType, Map.of());
    }

    /**
     * @param fixedSizeListColumns ARRAY columns stored as FixedSizeList of the given length, the
     *     usual layout of embedding vectors (ARRAY&lt;FLOAT&gt; becomes FixedSizeList(n, Float32))
     */
    public static Schema toArrowSchema(RowType rowType, Map<String, Integer> fixedSizeListColumns) {
        Map<String, Integer> pending = new HashMap<>(fixedSizeListColumns);
        List<Field> fields = new ArrayList<>();
        for (RowType.RowField f : rowType.getFields()) {
            Integer size = pending.remove(f.getName());
            if (size == null) {
                fields.add(toArrowField(f.getName(), f.getType()));
            } else if (f.getType() instanceof ArrayType array) {
                fields.add(toFixedSizeListField(f.getName(), array, size));
            } else {
                throw new IllegalArgumentException("column '" + f.getName() + "' is declared a fixed-size list"
                        + " but its type " + f.getType() + " is not an ARRAY");
            }
        }
        if (!pending.isEmpty()) {
            throw new IllegalArgumentException("fixed-size list columns " + pending.keySet()
                    + " are not in the row type " + rowType.getFieldNames());
        }
        return new Schema(fields);
    }

    /** @throws UnsupportedColumnTypeException naming the column (or {@code column[]} for an element) */
    public static Field toArrowField(String name, LogicalType type) {
        return toArrowField(name, type, name);
    }

    public static Field toFixedSizeListField(String name, ArrayType type, int listSize) {
        if (listSize <= 0) {
            throw new IllegalArgumentException(
                    "column '" + name + "': fixed-size list length must be positive, got " + listSize);
        }
        Field element = toArrowField(LIST_ELEMENT_NAME, type.getElementType(), name + "[]");
        return new Field(
                name, new FieldType(type.isNullable(), new ArrowType.FixedSizeList(listSize), null), List.of(element));
    }

    /**
     * @param column the column path used in errors ({@code tags[]} for an array element,
     *     {@code addr.city} for a field of a row, {@code attrs{}} for a map's keys and values)
     */
    private static Field toArrowField(String name, LogicalType type, String column) {
        if (type instanceof ArrayType array) {
            Field element = toArrowField(LIST_ELEMENT_NAME, array.getElementType(), column + "[]");
            return new Field(name, new FieldType(type.isNullable(), ArrowType.List.INSTANCE, null), List.of(element));
        }
        if (type instanceof RowType row) {
            List<Field> children = new ArrayList<>();
            for (RowType.RowField f : row.getFields()) {
                children.add(toArrowField(f.getName(), f.getType(), column + "." + f.getName()));
            }
            return new Field(name, new FieldType(type.isNullable(), ArrowType.Struct.INSTANCE, null), children);
        }
        if (type instanceof MapType map) {
            Field key = toArrowField(MapVector.KEY_NAME, map.getKeyType().copy(false), column + "{}");
            Field value = toArrowField(MapVector.VALUE_NAME, map.getValueType(), column + "{}");
            Field entries = new Field(
                    MapVector.DATA_VECTOR_NAME, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
            return new Field(name, new FieldType(type.isNullable(), new ArrowType.Map(false), null), List.of(entries));
        }
        return new Field(name, new FieldType(type.isNullable(), toArrowScalar(column, type), null), null);
    }

    private static ArrowType toArrowScalar(String column, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return ArrowType.Bool.INSTANCE;
            case TINYINT:
                return new ArrowType.Int(8, true);
            case SMALLINT:
                return new ArrowType.Int(16, true);
            case INTEGER:
                return new ArrowType.Int(32, true);
            case BIGINT:
                return new ArrowType.Int(64, true);
            case FLOAT:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case DOUBLE:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
            }
            case CHAR:
            case VARCHAR:
                return ArrowType.Utf8.INSTANCE;
            case BINARY:
            case VARBINARY:
                return ArrowType.Binary.INSTANCE;
            case DATE:
                return new ArrowType.Date(DateUnit.DAY);
            case TIME_WITHOUT_TIME_ZONE: {
                TemporalUnit unit = TemporalUnit.forPrecision(((TimeType) type).getPrecision());
                return new ArrowType.Time(unit.arrow(), unit.precision() <= 3 ? 32 : 64);
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new ArrowType.Timestamp(
                        TemporalUnit.forPrecision(((TimestampType) type).getPrecision())
                                .arrow(),
                        null);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new ArrowType.Timestamp(
                        TemporalUnit.forPrecision(((LocalZonedTimestampType) type).getPrecision())
                                .arrow(),
                        UTC);
            case STRUCTURED_TYPE:
                throw new UnsupportedColumnTypeException(
                        column, type, "structured types are not supported; declare the column as a ROW");
            case MULTISET:
                throw new UnsupportedColumnTypeException(
                        column, type, "Lance has no multiset; declare the column as a MAP of element to INT count");
            case TIMESTAMP_WITH_TIME_ZONE:
                throw new UnsupportedColumnTypeException(column, type, "Arrow stores instants only; use TIMESTAMP_LTZ");
            default:
                throw new UnsupportedColumnTypeException(
                        column,
                        type,
                        "supported are BOOLEAN, TINYINT, SMALLINT, INT,"
                                + " BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY, VARBINARY,"
                                + " DATE, TIME, TIMESTAMP,"
                                + " TIMESTAMP_LTZ and ARRAY, ROW and MAP of those");
        }
    }

    public static RowType toRowType(Schema schema) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (Field f : schema.getFields()) {
            fields.add(new RowType.RowField(f.getName(), toLogicalType(f)));
        }
        return new RowType(fields);
    }

    public static DataType toDataType(Field field) {
        return TypeConversions.fromLogicalToDataType(toLogicalType(field));
    }

    public static LogicalType toLogicalType(Field field) {
        return toLogicalType(field, field.getName());
    }

    private static LogicalType toLogicalType(Field field, String column) {
        boolean nullable = field.isNullable();
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool:
                return new BooleanType(nullable);
            case Int: {
                ArrowType.Int t = (ArrowType.Int) type;
                if (!t.getIsSigned()) {
                    throw new UnsupportedColumnTypeException(column, type, "Flink has no unsigned integers");
                }
                switch (t.getBitWidth()) {
                    case 8:
                        return new TinyIntType(nullable);
                    case 16:
                        return new SmallIntType(nullable);
                    case 32:
                        return new IntType(nullable);
                    default:
                        return new BigIntType(nullable);
                }
            }
            case FloatingPoint:
                switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                    case SINGLE:
                        return new FloatType(nullable);
                    case DOUBLE:
                        return new DoubleType(nullable);
                    default:
                        throw new UnsupportedColumnTypeException(column, type, "Flink has no half-precision float");
                }
            case Decimal: {
                ArrowType.Decimal d = (ArrowType.Decimal) type;
                if (d.getBitWidth() != 128 || d.getPrecision() > DecimalType.MAX_PRECISION || d.getScale() < 0) {
                    throw new UnsupportedColumnTypeException(
                            column,
                            type,
                            "Flink decimals are 128-bit with precision up to 38 and a non-negative scale");
                }
                return new DecimalType(nullable, d.getPrecision(), d.getScale());
            }
            case Utf8:
            case LargeUtf8:
                return new VarCharType(nullable, VarCharType.MAX_LENGTH);
            case Binary:
            case LargeBinary:
                return new VarBinaryType(nullable, VarBinaryType.MAX_LENGTH);
            case FixedSizeBinary:
                return new BinaryType(nullable, ((ArrowType.FixedSizeBinary) type).getByteWidth());
            case Date:
                return new DateType(nullable);
            case Time:
                return new TimeType(
                        nullable,
                        TemporalUnit.of(((ArrowType.Time) type).getUnit()).precision());
            case Timestamp: {
                ArrowType.Timestamp t = (ArrowType.Timestamp) type;
                int precision = TemporalUnit.of(t.getUnit()).precision();
                return t.getTimezone() == null
                        ? new TimestampType(nullable, precision)
                        : new LocalZonedTimestampType(nullable, precision);
            }
            case List:
            case FixedSizeList:
                return new ArrayType(nullable, toLogicalType(field.getChildren().get(0), column + "[]"));
            case Struct: {
                List<RowType.RowField> fields = new ArrayList<>();
                for (Field child : field.getChildren()) {
                    fields.add(new RowType.RowField(
                            child.getName(), toLogicalType(child, column + "." + child.getName())));
                }
                return new RowType(nullable, fields);
            }
            case Map: {
                List<Field> entry = field.getChildren().get(0).getChildren();
                return new MapType(
                        nullable,
                        toLogicalType(entry.get(0), column + "{}"),
                        toLogicalType(entry.get(1), column + "{}"));
            }
            default:
                throw new UnsupportedColumnTypeException(
                        column,
                        type,
                        "supported are Bool, signed Int, Float32,"
                                + " Float64, Decimal128, Utf8, LargeUtf8, Binary, LargeBinary, FixedSizeBinary,"
                                + " Date, Time,"
                                + " Timestamp, List, FixedSizeList, Struct and Map of those");
        }
    }
}
