package io.walsink.flink.convert;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

/**
 * The external Java classes accepted per column type, and their conversion to Flink's internal
 * objects. Written here rather than taken from flink-table-runtime's DataStructureConverters so
 * that DataStream jobs need only flink-table-common, and so that Row and POJO conversion share
 * one table with errors naming the column.
 *
 * <pre>
 * BOOLEAN Boolean    TINYINT Byte    SMALLINT Short    INT Integer    BIGINT Long
 * FLOAT Float        DOUBLE Double   DECIMAL BigDecimal                CHAR/VARCHAR String
 * BINARY/VARBINARY byte[]            DATE LocalDate    TIME LocalTime
 * TIMESTAMP LocalDateTime            TIMESTAMP_LTZ Instant
 * ARRAY&lt;T&gt;  T[] of the element's class, a primitive array (int[], float[], ...) or a List
 * ROW         Row (by position, or by name when it has names), or a record or POJO with a
 *             property per field (in a POJO, a property whose declared class is neither Row nor Object)
 * MAP&lt;K, V&gt;   a Map of K's to V's classes (no null keys)
 * </pre>
 * Decimals are never rounded: a BigDecimal with more fractional digits than the column's scale,
 * or more integer digits than it holds, is refused.
 */
final class ExternalConverters {
    private ExternalConverters() {}

    static ExternalConverter create(String column, LogicalType type) {
        return create(column, type, Object.class);
    }

    /**
     * @param javaType the declared Java type the values come from (a POJO's property), so that a
     *     ROW of a record or POJO class is converted from its properties; Object when unknown
     */
    static ExternalConverter create(String column, LogicalType type, Type javaType) {
        FlinkArrowTypes.toArrowField(column, type); // same supported set as the Arrow side, same errors
        if (type instanceof ArrayType array) {
            return array(column, array, typeArgument(javaType, 0));
        }
        if (type instanceof RowType row) {
            return row(column, row, javaType);
        }
        if (type instanceof MapType map) {
            return map(column, map, typeArgument(javaType, 0), typeArgument(javaType, 1));
        }
        Class<?> external = externalClass(type);
        Function<Object, Object> convert = scalarConversion(column, type);
        return value -> {
            if (!external.isInstance(value)) {
                throw new ColumnValueException(
                        column,
                        "expected " + external.getName() + " for " + type + ", got "
                                + value.getClass().getName() + " (" + value + ")");
            }
            return convert.apply(value);
        };
    }

    /**
     * Whether a field of Java type {@code javaType} can hold values of {@code type}, checked when a
     * POJO converter is built.
     */
    static boolean accepts(LogicalType type, Type javaType) {
        if (type instanceof RowType) {
            return javaType == Row.class || isBean(javaType);
        }
        if (type instanceof MapType map) {
            if (javaType instanceof ParameterizedType p
                    && p.getRawType() instanceof Class<?> raw
                    && Map.class.isAssignableFrom(raw)) {
                return accepts(map.getKeyType(), p.getActualTypeArguments()[0])
                        && accepts(map.getValueType(), p.getActualTypeArguments()[1]);
            }
            return javaType instanceof Class<?> c && Map.class.isAssignableFrom(c); // raw map: checked per value
        }
        if (type instanceof ArrayType array) {
            LogicalType element = array.getElementType();
            if (javaType instanceof Class<?> c && c.isArray()) {
                return c.getComponentType().isPrimitive()
                        ? c == primitiveArrayClass(element)
                        : accepts(element, c.getComponentType());
            }
            if (javaType instanceof GenericArrayType g) {
                return accepts(element, g.getGenericComponentType());
            }
            if (javaType instanceof ParameterizedType p
                    && p.getRawType() instanceof Class<?> raw
                    && List.class.isAssignableFrom(raw)) {
                return accepts(element, p.getActualTypeArguments()[0]);
            }
            return javaType instanceof Class<?> c && List.class.isAssignableFrom(c); // raw list: checked per value
        }
        return javaType instanceof Class<?> c && boxed(c) == externalClass(type);
    }

    /** What {@link #accepts} wants, for error messages. */
    static String expectedJavaType(LogicalType type) {
        if (type instanceof RowType) {
            return Row.class.getName() + ", a record or a POJO";
        }
        if (type instanceof MapType map) {
            return "Map<" + expectedJavaType(map.getKeyType()) + ", " + expectedJavaType(map.getValueType()) + ">";
        }
        if (type instanceof ArrayType array) {
            Class<?> primitive = primitiveArrayClass(array.getElementType());
            return (primitive != null ? primitive.getSimpleName() + ", " : "")
                    + expectedJavaType(array.getElementType()) + "[] or List<"
                    + expectedJavaType(array.getElementType()) + ">";
        }
        return externalClass(type).getName();
    }

    private static Class<?> externalClass(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Boolean.class;
            case TINYINT:
                return Byte.class;
            case SMALLINT:
                return Short.class;
            case INTEGER:
                return Integer.class;
            case BIGINT:
                return Long.class;
            case FLOAT:
                return Float.class;
            case DOUBLE:
                return Double.class;
            case DECIMAL:
                return BigDecimal.class;
            case CHAR:
            case VARCHAR:
                return String.class;
            case BINARY:
            case VARBINARY:
                return byte[].class;
            case DATE:
                return LocalDate.class;
            case TIME_WITHOUT_TIME_ZONE:
                return LocalTime.class;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return LocalDateTime.class;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Instant.class;
            default:
                throw new IllegalStateException("no external class for " + type);
        }
    }

    private static Function<Object, Object> scalarConversion(String column, LogicalType type) {
        switch (type.getTypeRoot()) {
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return v -> decimal(column, d, (BigDecimal) v);
            }
            case CHAR:
            case VARCHAR:
                return v -> StringData.fromString((String) v);
            case DATE:
                return v -> Math.toIntExact(((LocalDate) v).toEpochDay());
            case TIME_WITHOUT_TIME_ZONE:
                return v -> (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return v -> TimestampData.fromLocalDateTime((LocalDateTime) v);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return v -> TimestampData.fromInstant((Instant) v);
            default:
                return Function.identity(); // boxed primitives and byte[] are already internal
        }
    }

    private static DecimalData decimal(String column, DecimalType type, BigDecimal value) {
        BigDecimal rescaled;
        try {
            rescaled = value.setScale(type.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new ColumnValueException(column, "value " + value.toPlainString() + " would be rounded in " + type);
        }
        DecimalData result = DecimalData.fromBigDecimal(rescaled, type.getPrecision(), type.getScale());
        if (result == null) { // Flink's signal for "does not fit the precision"
            throw new ColumnValueException(column, "value " + value.toPlainString() + " does not fit " + type);
        }
        return result;
    }

    /** A nested row from a Row, or from a record or POJO when the property's class is one. */
    private static ExternalConverter row(String column, RowType type, Type javaType) {
        if (isBean(javaType)) {
            Class<?> bean = (Class<?>) javaType;
            PojoToRowData<?> nested = PojoToRowData.create(bean, type, column + ".");
            return value -> {
                if (!bean.isInstance(value)) {
                    throw new ColumnValueException(
                            column,
                            "expected " + bean.getName() + " for " + type + ", got "
                                    + value.getClass().getName());
                }
                return nested.convertNested(value);
            };
        }
        RowToRowData nested = RowToRowData.create(type, column + ".");
        return value -> {
            if (!(value instanceof Row r)) {
                throw new ColumnValueException(
                        column,
                        "expected " + expectedJavaType(type) + " for " + type + ", got "
                                + value.getClass().getName());
            }
            return nested.convert(r);
        };
    }

    private static ExternalConverter map(String column, MapType type, Type keyType, Type valueType) {
        ExternalConverter key = create(column + "{}", type.getKeyType(), keyType);
        ExternalConverter value = create(column + "{}", type.getValueType(), valueType);
        return v -> {
            if (!(v instanceof Map<?, ?> map)) {
                throw new ColumnValueException(
                        column,
                        "expected " + expectedJavaType(type) + " for " + type + ", got "
                                + v.getClass().getName());
            }
            Map<Object, Object> internal = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (e.getKey() == null) {
                    throw new ColumnValueException(column, "a map key is null; Lance maps have no null keys");
                }
                internal.put(key.toInternal(e.getKey()), e.getValue() == null ? null : value.toInternal(e.getValue()));
            }
            return new GenericMapData(internal);
        };
    }

    /** A class whose properties a nested ROW is read from: a record or POJO, not a JDK or Flink type. */
    private static boolean isBean(Type javaType) {
        return javaType instanceof Class<?> c
                && !c.isPrimitive()
                && !c.isArray()
                && !c.isInterface()
                && c != Row.class
                && !c.getName().startsWith("java.");
    }

    /** Type argument {@code i} of a parameterized List or Map, or an array's component type; else Object. */
    private static Type typeArgument(Type javaType, int i) {
        if (javaType instanceof Class<?> c && c.isArray()) {
            return c.getComponentType();
        }
        if (javaType instanceof GenericArrayType g) {
            return g.getGenericComponentType();
        }
        if (javaType instanceof ParameterizedType p && p.getActualTypeArguments().length > i) {
            return p.getActualTypeArguments()[i];
        }
        return Object.class;
    }

    private static ExternalConverter array(String column, ArrayType type, Type elementType) {
        ExternalConverter element = create(column + "[]", type.getElementType(), elementType);
        Class<?> primitive = primitiveArrayClass(type.getElementType());
        return value -> {
            if (primitive != null && primitive.isInstance(value)) {
                return primitiveArray(value);
            }
            if (value instanceof Object[] values) {
                return convertElements(values, element);
            }
            if (value instanceof List<?> list) {
                return convertElements(list.toArray(), element);
            }
            throw new ColumnValueException(
                    column,
                    "expected " + expectedJavaType(type) + " for " + type + ", got "
                            + value.getClass().getName());
        };
    }

    private static GenericArrayData convertElements(Object[] values, ExternalConverter element) {
        Object[] internal = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            internal[i] = values[i] == null ? null : element.toInternal(values[i]);
        }
        return new GenericArrayData(internal);
    }

    /** Primitive arrays are wrapped as they are: no boxing for embedding vectors. */
    private static GenericArrayData primitiveArray(Object value) {
        if (value instanceof float[] v) {
            return new GenericArrayData(v);
        } else if (value instanceof double[] v) {
            return new GenericArrayData(v);
        } else if (value instanceof int[] v) {
            return new GenericArrayData(v);
        } else if (value instanceof long[] v) {
            return new GenericArrayData(v);
        } else if (value instanceof short[] v) {
            return new GenericArrayData(v);
        } else if (value instanceof byte[] v) {
            return new GenericArrayData(v);
        }
        return new GenericArrayData((boolean[]) value);
    }

    private static Class<?> primitiveArrayClass(LogicalType element) {
        switch (element.getTypeRoot()) {
            case BOOLEAN:
                return boolean[].class;
            case TINYINT:
                return byte[].class;
            case SMALLINT:
                return short[].class;
            case INTEGER:
                return int[].class;
            case BIGINT:
                return long[].class;
            case FLOAT:
                return float[].class;
            case DOUBLE:
                return double[].class;
            default:
                return null;
        }
    }

    private static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == boolean.class) {
            return Boolean.class;
        } else if (c == byte.class) {
            return Byte.class;
        } else if (c == short.class) {
            return Short.class;
        } else if (c == int.class) {
            return Integer.class;
        } else if (c == long.class) {
            return Long.class;
        } else if (c == float.class) {
            return Float.class;
        } else if (c == double.class) {
            return Double.class;
        }
        return c;
    }
}
