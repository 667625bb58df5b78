package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.flink.convert.SchemaMismatchException;
import io.walsink.flink.convert.TemporalUnit;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Picks the writer for a (Flink type, Arrow field) pair and checks that they agree, once per
 * column. A Flink type is accepted by the Arrow type it maps to ({@link FlinkArrowTypes}) and by
 * a few others that hold every value losslessly: Utf8/LargeUtf8 for strings, Binary/LargeBinary/
 * FixedSizeBinary for bytes, Date(MILLISECOND), a finer time unit, a wider decimal, any zone for
 * TIMESTAMP_LTZ, and FixedSizeList for arrays. Integers and floats must match exactly. A ROW's
 * fields are matched with a struct's children by name, as columns are.
 */
final class FieldWriterFactory {
    private FieldWriterFactory() {}

    static FieldWriter create(String column, LogicalType flink, Field arrow) {
        FlinkArrowTypes.toArrowField(column, flink); // refuses unsupported Flink types first, naming them
        boolean nullable = arrow.isNullable();
        ArrowType type = arrow.getType();
        switch (flink.getTypeRoot()) {
            case BOOLEAN:
                require(column, flink, arrow, type instanceof ArrowType.Bool);
                return new PrimitiveFieldWriters.BooleanWriter(column, nullable);
            case TINYINT:
                require(column, flink, arrow, isSignedInt(type, 8));
                return new PrimitiveFieldWriters.TinyIntWriter(column, nullable);
            case SMALLINT:
                require(column, flink, arrow, isSignedInt(type, 16));
                return new PrimitiveFieldWriters.SmallIntWriter(column, nullable);
            case INTEGER:
                require(column, flink, arrow, isSignedInt(type, 32));
                return new PrimitiveFieldWriters.IntWriter(column, nullable);
            case BIGINT:
                require(column, flink, arrow, isSignedInt(type, 64));
                return new PrimitiveFieldWriters.BigIntWriter(column, nullable);
            case FLOAT:
                require(column, flink, arrow, isFloat(type, FloatingPointPrecision.SINGLE));
                return new PrimitiveFieldWriters.FloatWriter(column, nullable);
            case DOUBLE:
                require(column, flink, arrow, isFloat(type, FloatingPointPrecision.DOUBLE));
                return new PrimitiveFieldWriters.DoubleWriter(column, nullable);
            case DECIMAL:
                return decimal(column, (DecimalType) flink, arrow);
            case CHAR:
            case VARCHAR:
                require(column, flink, arrow, type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8);
                return new BytesFieldWriters.StringWriter(column, nullable);
            case BINARY:
            case VARBINARY:
                if (type instanceof ArrowType.FixedSizeBinary fixed) {
                    return new BytesFieldWriters.FixedBinaryWriter(column, nullable, fixed.getByteWidth());
                }
                require(
                        column,
                        flink,
                        arrow,
                        type instanceof ArrowType.Binary || type instanceof ArrowType.LargeBinary);
                return new BytesFieldWriters.BinaryWriter(column, nullable);
            case DATE:
                require(column, flink, arrow, type instanceof ArrowType.Date);
                return ((ArrowType.Date) type).getUnit() == DateUnit.DAY
                        ? new TemporalFieldWriters.DateDayWriter(column, nullable)
                        : new TemporalFieldWriters.DateMilliWriter(column, nullable);
            case TIME_WITHOUT_TIME_ZONE: {
                require(column, flink, arrow, type instanceof ArrowType.Time);
                TemporalUnit unit = TemporalUnit.of(((ArrowType.Time) type).getUnit());
                // RowData holds TIME as millis, so digits past 3 never exist whatever TIME(p) says.
                int effective = Math.min(((TimeType) flink).getPrecision(), 3);
                requirePrecision(column, flink, arrow, effective, unit);
                return new TemporalFieldWriters.TimeWriter(column, nullable, unit);
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestamp(column, flink, arrow, ((TimestampType) flink).getPrecision(), false);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestamp(column, flink, arrow, ((LocalZonedTimestampType) flink).getPrecision(), true);
            case ARRAY:
                return array(column, (ArrayType) flink, arrow);
            case ROW:
                return struct(column, (RowType) flink, arrow);
            case MAP:
                return map(column, (MapType) flink, arrow);
            default:
                throw new IllegalStateException("type " + flink + " passed the mapping but has no writer");
        }
    }

    private static FieldWriter decimal(String column, DecimalType flink, Field arrow) {
        require(column, flink, arrow, arrow.getType() instanceof ArrowType.Decimal d && d.getBitWidth() == 128);
        ArrowType.Decimal d = (ArrowType.Decimal) arrow.getType();
        boolean widening = flink.getScale() <= d.getScale()
                && flink.getPrecision() - flink.getScale() <= d.getPrecision() - d.getScale();
        if (!widening) {
            throw new SchemaMismatchException(
                    column,
                    "Flink type " + flink + " does not fit the table's " + d
                            + " without rounding or overflow; cast it to DECIMAL(" + d.getPrecision() + ", "
                            + d.getScale() + ")");
        }
        return new DecimalFieldWriter(
                column, arrow.isNullable(), d.getPrecision(), d.getScale(), flink.getPrecision(), flink.getScale());
    }

    private static FieldWriter timestamp(
            String column, LogicalType flink, Field arrow, int precision, boolean instant) {
        require(
                column,
                flink,
                arrow,
                arrow.getType() instanceof ArrowType.Timestamp t && (t.getTimezone() != null) == instant);
        TemporalUnit unit = TemporalUnit.of(((ArrowType.Timestamp) arrow.getType()).getUnit());
        requirePrecision(column, flink, arrow, precision, unit);
        return new TemporalFieldWriters.TimestampWriter(column, arrow.isNullable(), unit, precision);
    }

    private static FieldWriter array(String column, ArrayType flink, Field arrow) {
        ArrowType type = arrow.getType();
        require(column, flink, arrow, type instanceof ArrowType.List || type instanceof ArrowType.FixedSizeList);
        FieldWriter element = create(
                column + "[]", flink.getElementType(), arrow.getChildren().get(0));
        if (type instanceof ArrowType.FixedSizeList fixed) {
            return new FixedSizeListFieldWriter(column, arrow.isNullable(), element, fixed.getListSize());
        }
        return new ListFieldWriter(column, arrow.isNullable(), element);
    }

    /** The struct's children are matched with the row's fields by name, as the table's columns are. */
    private static FieldWriter struct(String column, RowType flink, Field arrow) {
        require(column, flink, arrow, arrow.getType() instanceof ArrowType.Struct);
        List<Field> children = arrow.getChildren();
        List<String> names = flink.getFieldNames();
        if (children.size() != names.size()
                || !children.stream().map(Field::getName).allMatch(names::contains)) {
            throw new SchemaMismatchException(
                    column,
                    "Flink type " + flink + " has fields " + names + ", the table's struct has "
                            + children.stream().map(Field::getName).toList());
        }
        FieldWriter[] writers = new FieldWriter[children.size()];
        int[] positions = new int[children.size()];
        for (int c = 0; c < writers.length; c++) {
            Field child = children.get(c);
            positions[c] = names.indexOf(child.getName());
            writers[c] = create(column + "." + child.getName(), flink.getTypeAt(positions[c]), child);
        }
        return new StructFieldWriter(column, arrow.isNullable(), writers, positions, names.size());
    }

    private static FieldWriter map(String column, MapType flink, Field arrow) {
        require(column, flink, arrow, arrow.getType() instanceof ArrowType.Map);
        List<Field> entry = arrow.getChildren().get(0).getChildren();
        FieldWriter key = create(column + "{}", flink.getKeyType(), entry.get(0));
        FieldWriter value = create(column + "{}", flink.getValueType(), entry.get(1));
        return new MapFieldWriter(column, arrow.isNullable(), key, value);
    }

    private static boolean isSignedInt(ArrowType type, int bits) {
        return type instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == bits;
    }

    private static boolean isFloat(ArrowType type, FloatingPointPrecision precision) {
        return type instanceof ArrowType.FloatingPoint f && f.getPrecision() == precision;
    }

    private static void require(String column, LogicalType flink, Field arrow, boolean compatible) {
        if (!compatible) {
            throw new SchemaMismatchException(
                    column,
                    "Flink type " + flink + " cannot be written to the table's Arrow type " + arrow.getType()
                            + " (it maps to "
                            + FlinkArrowTypes.toArrowField(column, flink).getType() + ")");
        }
    }

    private static void requirePrecision(
            String column, LogicalType flink, Field arrow, int precision, TemporalUnit unit) {
        if (precision > unit.precision()) {
            throw new SchemaMismatchException(
                    column,
                    "Flink type " + flink + " has " + precision
                            + " fractional digits, the table's " + arrow.getType() + " keeps " + unit.precision()
                            + "; cast it to a precision of at most " + unit.precision());
        }
    }
}
