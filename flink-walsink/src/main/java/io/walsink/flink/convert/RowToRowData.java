package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

/**
 * Converts {@link Row}s holding external Java values (see {@link ExternalConverters} for the
 * classes per type) into {@link GenericRowData} of a row type, keeping the {@link Row#getKind()}.
 * A Row with field names is matched by name and must name exactly the row type's fields; a
 * positional Row must have the row type's arity. Not serializable: build it in {@code open}.
 */
@Internal
public final class RowToRowData {
    private final RowType rowType;
    private final List<String> names;
    private final ExternalConverter[] converters;

    private RowToRowData(RowType rowType, ExternalConverter[] converters) {
        this.rowType = rowType;
        this.names = rowType.getFieldNames();
        this.converters = converters;
    }

    public static RowToRowData create(RowType rowType) {
        ExternalConverter[] converters = new ExternalConverter[rowType.getFieldCount()];
        for (int i = 0; i < converters.length; i++) {
            converters[i] = ExternalConverters.create(rowType.getFieldNames().get(i), rowType.getTypeAt(i));
        }
        return new RowToRowData(rowType, converters);
    }

    public GenericRowData convert(Row row) {
        Set<String> rowNames = row.getFieldNames(false);
        if (rowNames == null && row.getArity() != converters.length) {
            throw new IllegalArgumentException(
                    "the row has " + row.getArity() + " fields, the row type " + rowType + " has " + converters.length);
        }
        if (rowNames != null) {
            checkNames(rowNames);
        }
        GenericRowData result = new GenericRowData(row.getKind(), converters.length);
        for (int i = 0; i < converters.length; i++) {
            Object value = rowNames == null ? row.getField(i) : row.getField(names.get(i));
            result.setField(i, value == null ? null : converters[i].toInternal(value));
        }
        return result;
    }

    private void checkNames(Set<String> rowNames) {
        for (String name : names) {
            if (!rowNames.contains(name)) {
                throw new ColumnValueException(name, "missing from the named row, which has fields " + rowNames);
            }
        }
        if (rowNames.size() != names.size()) {
            String extra = rowNames.stream()
                    .filter(n -> !names.contains(n))
                    .findFirst()
                    .orElseThrow();
            throw new ColumnValueException(extra, "the named row has this field, the row type " + names + " does not");
        }
    }

    public RowType rowType() {
        return rowType;
    }
}
