package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * Converts Java records and POJOs into {@link GenericRowData} of a row type (usually the table's,
 * see {@link #forTable}). Each column is read from the property of the same name or, failing
 * that, the one property whose name matches ignoring case and underscores ({@code user_id} ←
 * {@code userId}). When built, every column must have a property whose Java type holds the
 * column's values (see {@link ExternalConverters}); properties without a column are ignored. Not
 * serializable: build it in {@code open}.
 */
@Internal
public final class PojoToRowData<T> {
    private final Class<T> type;
    private final RowType rowType;
    private final JavaProperties.Property[] properties;
    private final ExternalConverter[] converters;

    private PojoToRowData(
            Class<T> type, RowType rowType, JavaProperties.Property[] properties, ExternalConverter[] converters) {
        this.type = type;
        this.rowType = rowType;
        this.properties = properties;
        this.converters = converters;
    }

    /** Against the table schema, through the reverse type mapping of {@link FlinkArrowTypes}. */
    public static <T> PojoToRowData<T> forTable(Class<T> type, Schema tableSchema) {
        return create(type, FlinkArrowTypes.toRowType(tableSchema));
    }

    public static <T> PojoToRowData<T> create(Class<T> type, RowType rowType) {
        return create(type, rowType, "");
    }

    /** @param path what errors put before a column's name: {@code addr.} for the fields of a nested row */
    static <T> PojoToRowData<T> create(Class<T> type, RowType rowType, String path) {
        Map<String, JavaProperties.Property> available = JavaProperties.of(type);
        int n = rowType.getFieldCount();
        JavaProperties.Property[] properties = new JavaProperties.Property[n];
        ExternalConverter[] converters = new ExternalConverter[n];
        for (int i = 0; i < n; i++) {
            String name = rowType.getFieldNames().get(i);
            String column = path + name;
            LogicalType columnType = rowType.getTypeAt(i);
            JavaProperties.Property p = find(type, name, column, available);
            if (!ExternalConverters.accepts(columnType, p.type())) {
                throw new SchemaMismatchException(
                        column,
                        p.declaration() + " has Java type " + p.type().getTypeName() + ", the column is " + columnType
                                + ", which takes " + ExternalConverters.expectedJavaType(columnType));
            }
            properties[i] = p;
            converters[i] = ExternalConverters.create(column, columnType, p.type());
        }
        return new PojoToRowData<>(type, rowType, properties, converters);
    }

    public GenericRowData convert(T value) {
        return convert(value, RowKind.INSERT);
    }

    public GenericRowData convert(T value, RowKind kind) {
        GenericRowData row = new GenericRowData(kind, properties.length);
        for (int i = 0; i < properties.length; i++) {
            Object field = properties[i].get(value);
            row.setField(i, field == null ? null : converters[i].toInternal(field));
        }
        return row;
    }

    /** {@code value} (an instance of this converter's class, unchecked) as a nested row. */
    GenericRowData convertNested(Object value) {
        return convert(type.cast(value));
    }

    public RowType rowType() {
        return rowType;
    }

    public Class<T> type() {
        return type;
    }

    private static JavaProperties.Property find(
            Class<?> type, String name, String column, Map<String, JavaProperties.Property> available) {
        JavaProperties.Property exact = available.get(name);
        if (exact != null) {
            return exact;
        }
        List<JavaProperties.Property> loose = new ArrayList<>();
        for (JavaProperties.Property p : available.values()) {
            if (normalize(p.name()).equals(normalize(name))) {
                loose.add(p);
            }
        }
        if (loose.size() == 1) {
            return loose.get(0);
        }
        throw new SchemaMismatchException(
                column,
                loose.isEmpty()
                        ? "no field or getter of that name in " + type.getName() + ", which has " + available.keySet()
                        : "several properties of " + type.getName() + " match it: "
                                + loose.stream()
                                        .map(JavaProperties.Property::name)
                                        .toList());
    }

    private static String normalize(String name) {
        return name.replace("_", "").toLowerCase(Locale.ROOT);
    }
}
