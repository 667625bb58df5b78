package io.walsink.flink.convert;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.DecimalType;

/**
 * Readers from Arrow into Flink's internal objects, one per column, following the reverse type
 * mapping of {@link FlinkArrowTypes} (which also refuses the unsupported types).
 */
final class FieldReaders {
    private static final long MILLIS_PER_DAY = 86_400_000L;

    private FieldReaders() {}

    static FieldReader create(Field field) {
        FlinkArrowTypes.toLogicalType(field); // refuses unsupported types, naming the column
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool:
                return (v, i) -> ((BitVector) v).get(i) != 0;
            case Int:
                switch (((ArrowType.Int) type).getBitWidth()) {
                    case 8:
                        return (v, i) -> ((TinyIntVector) v).get(i);
                    case 16:
                        return (v, i) -> ((SmallIntVector) v).get(i);
                    case 32:
                        return (v, i) -> ((IntVector) v).get(i);
                    default:
                        return (v, i) -> ((BigIntVector) v).get(i);
                }
            case FloatingPoint:
                return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.SINGLE
                        ? (v, i) -> ((Float4Vector) v).get(i)
                        : (v, i) -> ((Float8Vector) v).get(i);
            case Decimal: {
                DecimalType d = (DecimalType) FlinkArrowTypes.toLogicalType(field);
                return (v, i) ->
                        DecimalData.fromBigDecimal(((DecimalVector) v).getObject(i), d.getPrecision(), d.getScale());
            }
            case Utf8:
            case LargeUtf8:
                return (v, i) -> StringData.fromBytes(((VariableWidthFieldVector) v).get(i));
            case Binary:
            case LargeBinary:
                return (v, i) -> ((VariableWidthFieldVector) v).get(i);
            case FixedSizeBinary:
                return (v, i) -> ((FixedSizeBinaryVector) v).get(i);
            case Date:
                return ((ArrowType.Date) type).getUnit() == DateUnit.DAY
                        ? (v, i) -> ((DateDayVector) v).get(i)
                        : (v, i) -> (int) Math.floorDiv(((DateMilliVector) v).get(i), MILLIS_PER_DAY);
            case Time:
                return time(TemporalUnit.of(((ArrowType.Time) type).getUnit()));
            case Timestamp: {
                TemporalUnit unit = TemporalUnit.of(((ArrowType.Timestamp) type).getUnit());
                return (v, i) -> unit.toTimestamp(((TimeStampVector) v).get(i));
            }
            case List: {
                FieldReader element = create(field.getChildren().get(0));
                return (v, i) -> {
                    ListVector list = (ListVector) v;
                    int start = list.getElementStartIndex(i);
                    return elements(list.getDataVector(), start, list.getElementEndIndex(i) - start, element);
                };
            }
            case FixedSizeList: {
                FieldReader element = create(field.getChildren().get(0));
                int size = ((ArrowType.FixedSizeList) type).getListSize();
                return (v, i) -> elements(((FixedSizeListVector) v).getDataVector(), i * size, size, element);
            }
            case Struct:
                return struct(field);
            case Map: {
                Field entry = field.getChildren().get(0);
                FieldReader key = create(entry.getChildren().get(0));
                FieldReader value = create(entry.getChildren().get(1));
                return (v, i) -> {
                    MapVector map = (MapVector) v;
                    StructVector entries = (StructVector) map.getDataVector();
                    FieldVector keys = (FieldVector) entries.getChildByOrdinal(0);
                    FieldVector values = (FieldVector) entries.getChildByOrdinal(1);
                    int end = map.getElementEndIndex(i);
                    Map<Object, Object> read = new LinkedHashMap<>();
                    for (int k = map.getElementStartIndex(i); k < end; k++) {
                        read.put(key.read(keys, k), values.isNull(k) ? null : value.read(values, k));
                    }
                    return new GenericMapData(read);
                };
            }
            default:
                throw new IllegalStateException("type " + type + " passed the mapping but has no reader");
        }
    }

    /** A struct as a GenericRowData of its children, in the struct's order. */
    private static FieldReader struct(Field field) {
        List<Field> children = field.getChildren();
        FieldReader[] readers = new FieldReader[children.size()];
        for (int c = 0; c < readers.length; c++) {
            readers[c] = create(children.get(c));
        }
        return (v, i) -> {
            StructVector struct = (StructVector) v;
            GenericRowData row = new GenericRowData(readers.length);
            for (int c = 0; c < readers.length; c++) {
                FieldVector child = (FieldVector) struct.getChildByOrdinal(c);
                row.setField(c, child.isNull(i) ? null : readers[c].read(child, i));
            }
            return row;
        };
    }

    private static FieldReader time(TemporalUnit unit) {
        switch (unit) {
            case SECOND:
                return (v, i) -> unit.toMillisOfDay(((TimeSecVector) v).get(i));
            case MILLISECOND:
                return (v, i) -> ((TimeMilliVector) v).get(i);
            case MICROSECOND:
                return (v, i) -> unit.toMillisOfDay(((TimeMicroVector) v).get(i));
            default:
                return (v, i) -> unit.toMillisOfDay(((TimeNanoVector) v).get(i));
        }
    }

    private static GenericArrayData elements(FieldVector child, int start, int size, FieldReader element) {
        Object[] values = new Object[size];
        for (int k = 0; k < size; k++) {
            values[k] = child.isNull(start + k) ? null : element.read(child, start + k);
        }
        return new GenericArrayData(values);
    }
}
