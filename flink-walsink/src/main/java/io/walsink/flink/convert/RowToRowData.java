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
    private final String path;

    private RowToRowData(RowType rowType, ExternalConverter[] converters, String path) {
        this.rowType = rowType;
        this.path = path;
        this.names = rowType.getFieldNames();
        this.converters = converters;
    }

    public static RowToRowData create(RowType rowType) {
        return create(rowType, "");
    }

    /** @param path what errors put before a field's name: {@code addr.} for the fields of a nested row */
    static RowToRowData create(RowType rowType, String path) {
        ExternalConverter[] converters = new ExternalConverter[rowType.getFieldCount()];
        for (int i = 0; i < converters.length; i++) {
            converters[i] =
                    ExternalConverters.create(path + rowType.getFieldNames().get(i), rowType.getTypeAt(i));
        }
        return new RowToRowData(rowType, converters, path);
    }

    public GenericRowData convert(Row row) {
        Set<String> rowNames = row.getFieldNames(false);
        if (rowNames == null && row.getArity() != converters.length) {
            throw new IllegalArgumentException(
                    (path.isEmpty() ? "" : "column '" + path.substring(0, path.length() - 1) + "': ") + "the row has "
                            + row.getArity() + " fields, the row type " + rowType + " has " + converters.length);
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
                throw new ColumnValueException(path + name, "missing from the named row, which has fields " + rowNames);
            }
        }
        if (rowNames.size() != names.size()) {
            String extra = rowNames.stream()
                    .filter(n -> !names.contains(n))
                    .findFirst()
                    .orElseThrow();
            throw new ColumnValueException(
                    path + extra, "the named row has this field, the row type " + names + " does not");
        }
    }

    public RowType rowType() {
        return rowType;
    }
}
