package io.walsink.table;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;

/**
 * The per-column vector options of a walsink table, {@code 'vector.<column>.dimension' = 'n'}:
 * the ARRAY column is stored as a Lance fixed-size list of n elements, the layout vector indexes
 * and LanceDB's vector search take. Keys are dynamic (one per column), so Flink's option set cannot
 * list them; they are checked here instead, by name.
 */
final class VectorColumnOptions {
    static final String PREFIX = "vector.";
    private static final String DIMENSION = ".dimension";

    private VectorColumnOptions() {}

    /** @return column -> dimension, in the order the options were given */
    static Map<String, Integer> from(Map<String, String> tableOptions) {
        Map<String, Integer> columns = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : tableOptions.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            if (!key.endsWith(DIMENSION) || key.length() <= PREFIX.length() + DIMENSION.length()) {
                throw new ValidationException(
                        "Unsupported option '" + key + "': a vector column takes 'vector.<column>.dimension' only");
            }
            String column = key.substring(PREFIX.length(), key.length() - DIMENSION.length());
            int dimension;
            try {
                dimension = Integer.parseInt(e.getValue().trim());
            } catch (NumberFormatException notANumber) {
                dimension = 0;
            }
            if (dimension <= 0) {
                throw new ValidationException(
                        "Option '" + key + "' must be a positive integer, got '" + e.getValue() + "'");
            }
            columns.put(column, dimension);
        }
        return columns;
    }
}
