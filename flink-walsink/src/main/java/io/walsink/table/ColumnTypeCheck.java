package io.walsink.table;

import io.walsink.error.InputException;
import io.walsink.flink.convert.FlinkArrowTypes;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Checks that the columns a SELECT declares are in the table with types the source can produce:
 * the type the sink would have created for the declaration, or the type the table's column
 * reads as (any CHAR/VARCHAR for a string column, any BINARY/VARBINARY for a binary one; a ROW's
 * fields by name and in order).
 * Nullability is not compared: a table's nullability says nothing about a query's.
 */
final class ColumnTypeCheck {
    private ColumnTypeCheck() {}

    static void requireReadable(RowType declared, Schema table, String path) {
        List<String> tableColumns =
                table.getFields().stream().map(Field::getName).toList();
        for (RowType.RowField column : declared.getFields()) {
            Field field = table.getFields().stream()
                    .filter(f -> f.getName().equals(column.getName()))
                    .findFirst()
                    .orElseThrow(() -> new ValidationException("Column '" + column.getName() + "' is declared but the"
                            + " walsink table at " + path + " has no such column; its columns are " + tableColumns));
            LogicalType stored;
            try {
                stored = FlinkArrowTypes.toLogicalType(field);
            } catch (IllegalArgumentException | InputException unsupported) {
                throw new ValidationException(
                        "Column '" + column.getName() + "' of the walsink table at " + path + " cannot be read: "
                                + unsupported.getMessage(),
                        unsupported);
            }
            if (!createdAs(column, field) && !readableAs(stored, column.getType())) {
                throw new ValidationException("Column '" + column.getName() + "' is declared " + column.getType()
                        + " but the walsink table at " + path + " stores " + field.getType() + " (read as " + stored
                        + ")");
            }
        }
    }

    private static boolean createdAs(RowType.RowField column, Field field) {
        try {
            return sameArrowType(FlinkArrowTypes.toArrowField(column.getName(), column.getType()), field);
        } catch (IllegalArgumentException | InputException unsupported) {
            return false;
        }
    }

    private static boolean sameArrowType(Field a, Field b) {
        if (!a.getType().equals(b.getType())
                || a.getChildren().size() != b.getChildren().size()) {
            return false;
        }
        boolean struct = a.getType() instanceof ArrowType.Struct;
        for (int i = 0; i < a.getChildren().size(); i++) {
            Field x = a.getChildren().get(i);
            Field y = b.getChildren().get(i);
            if (!sameArrowType(x, y) || (struct && !x.getName().equals(y.getName()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean readableAs(LogicalType stored, LogicalType declared) {
        if (stored instanceof ArrayType s && declared instanceof ArrayType d) {
            return readableAs(s.getElementType(), d.getElementType());
        }
        if (stored instanceof MapType s && declared instanceof MapType d) {
            return readableAs(s.getKeyType(), d.getKeyType()) && readableAs(s.getValueType(), d.getValueType());
        }
        if (stored instanceof RowType s && declared instanceof RowType d) {
            if (!s.getFieldNames().equals(d.getFieldNames())) {
                return false;
            }
            for (int i = 0; i < s.getFieldCount(); i++) {
                if (!readableAs(s.getTypeAt(i), d.getTypeAt(i))) {
                    return false;
                }
            }
            return true;
        }
        for (LogicalTypeFamily family : List.of(LogicalTypeFamily.CHARACTER_STRING, LogicalTypeFamily.BINARY_STRING)) {
            if (stored.is(family) && declared.is(family)) {
                return true;
            }
        }
        return stored.copy(true).equals(declared.copy(true));
    }
}
