package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * Arrow values as plain Java values: strings as {@link String} (not Arrow's {@code Text}), lists
 * and structs as {@link List} and {@link Map}, everything else as Arrow's {@code getObject} gives
 * it (Long, Integer, Double, Boolean, byte[], LocalDateTime, ...).
 */
@Internal
public final class RowValues {
    private RowValues() {}

    public static Object plain(FieldVector vector, int row) {
        return vector.isNull(row) ? null : plain(vector.getObject(row));
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
