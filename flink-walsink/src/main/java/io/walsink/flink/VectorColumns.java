package io.walsink.flink;

import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** The check that a table stores each declared vector column as a fixed-size list of its dimension. */
final class VectorColumns {
    private VectorColumns() {}

    /** @throws IllegalArgumentException naming the column, what was declared and what the table has */
    static void check(Map<String, Integer> declared, Schema table, String path) {
        for (Map.Entry<String, Integer> e : declared.entrySet()) {
            Field field = table.getFields().stream()
                    .filter(f -> f.getName().equals(e.getKey()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "vector column '" + e.getKey() + "' is not a column of the table at " + path));
            if (!(field.getType() instanceof ArrowType.FixedSizeList list) || list.getListSize() != e.getValue()) {
                throw new IllegalArgumentException("vector column '" + e.getKey() + "' is declared with dimension "
                        + e.getValue() + ", but the table at " + path + " stores it as " + field.getType()
                        + (field.getChildren().isEmpty()
                                ? ""
                                : " of " + field.getChildren().get(0).getType()));
            }
        }
    }
}
