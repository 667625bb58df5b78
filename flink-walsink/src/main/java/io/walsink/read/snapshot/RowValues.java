package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.util.Text;

/**
 * Arrow values as plain Java values: strings as {@link String} (not Arrow's {@code Text}), lists
 * as {@link List}, structs as a {@link Map} of field name to value, maps as a {@link Map} of key
 * to value (in stored order), everything else as Arrow's {@code getObject} gives it (Long,
 * Integer, Double, Boolean, byte[], LocalDateTime, ...).
 */
@Internal
public final class RowValues {
    private RowValues() {}

    public static Object plain(FieldVector vector, int row) {
        if (vector.isNull(row)) {
            return null;
        }
        if (vector instanceof MapVector map) {
            StructVector entries = (StructVector) map.getDataVector();
            FieldVector keys = (FieldVector) entries.getChildByOrdinal(0);
            FieldVector values = (FieldVector) entries.getChildByOrdinal(1);
            Map<Object, Object> plain = new LinkedHashMap<>();
            for (int i = map.getElementStartIndex(row); i < map.getElementEndIndex(row); i++) {
                plain.put(plain(keys, i), plain(values, i));
            }
            return plain;
        }
        if (vector instanceof ListVector list) {
            List<Object> plain = new ArrayList<>();
            for (int i = list.getElementStartIndex(row); i < list.getElementEndIndex(row); i++) {
                plain.add(plain((FieldVector) list.getDataVector(), i));
            }
            return plain;
        }
        if (vector instanceof StructVector struct) {
            Map<String, Object> plain = new LinkedHashMap<>();
            for (FieldVector child : struct.getChildrenFromFields()) {
                plain.put(child.getName(), plain(child, row));
            }
            return plain;
        }
        return plain(vector.getObject(row));
    }

    /** Row {@code row} of {@code batch}, the named columns only, in the given order. */
    public static Map<String, Object> row(VectorSchemaRoot batch, List<String> columns, int row) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String column : columns) {
            values.put(column, plain(batch.getVector(column), row));
        }
        return values;
    }

    /** Rows as {@link #row} makes them, the named columns only. */
    public static RowExtractor<Map<String, Object>> extractor(List<String> columns) {
        List<String> copy = List.copyOf(columns);
        return (batch, row) -> row(batch, copy, row);
    }

    private static Object plain(Object value) {
        if (value instanceof Text text) {
            return text.toString();
        }
        if (value instanceof List<?> list) {
            List<Object> plain = new ArrayList<>(list.size());
            list.forEach(v -> plain.add(plain(v)));
            return plain;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> plain = new LinkedHashMap<>();
            map.forEach((k, v) -> plain.put(plain(k), plain(v)));
            return plain;
        }
        return value;
    }
}
