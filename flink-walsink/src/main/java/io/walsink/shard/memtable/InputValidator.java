package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Checks input batches against the table schema: same columns in the same order with the same
 * types (nested children included), and no null in a primary-key column. Field metadata and
 * declared nullability of non-key columns are not compared: Flink and Arrow producers differ in
 * both without changing the data.
 */
@Internal
public final class InputValidator {
    private final Schema table;
    private final int[] keyColumns;
    private Schema lastAccepted; // schemas are usually the same instance batch after batch

    public InputValidator(Schema table, List<String> primaryKey) {
        this.table = table;
        this.keyColumns = new int[primaryKey.size()];
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < table.getFields().size(); i++) {
            positions.put(table.getFields().get(i).getName(), i);
        }
        for (int k = 0; k < primaryKey.size(); k++) {
            Integer position = positions.get(primaryKey.get(k));
            if (position == null) {
                throw new InvalidInputException(
                        primaryKey.get(k), "primary-key column is not in the table schema " + names(table));
            }
            keyColumns[k] = position;
        }
    }

    public void checkSchema(Schema input) {
        if (input == lastAccepted) {
            return;
        }
        List<Field> expected = table.getFields();
        List<Field> actual = input.getFields();
        Map<String, Field> byName = new HashMap<>();
        for (Field f : actual) {
            byName.put(f.getName(), f);
        }
        for (Field e : expected) {
            if (!byName.containsKey(e.getName())) {
                throw new InvalidInputException(
                        e.getName(), "missing from the input; the table has columns " + names(table));
            }
        }
        for (int i = 0; i < actual.size(); i++) {
            Field a = actual.get(i);
            Field e = i < expected.size() ? expected.get(i) : null;
            if (e == null || !e.getName().equals(a.getName())) {
                boolean known =
                        table.getFields().stream().anyMatch(f -> f.getName().equals(a.getName()));
                throw new InvalidInputException(
                        a.getName(),
                        known
                                ? "out of order: the input must list the table's columns " + names(table) + " in order"
                                : "unknown column; the table has columns " + names(table));
            }
            String mismatch = typeMismatch(e, a);
            if (mismatch != null) {
                throw new InvalidInputException(a.getName(), mismatch);
            }
        }
        lastAccepted = input;
    }

    /** Fails on the first null primary-key value in rows {@code [from, to)}. */
    public void checkKeysNotNull(VectorSchemaRoot input, int from, int to) {
        for (int k : keyColumns) {
            FieldVector v = input.getVector(k);
            if (v.getNullCount() == 0) {
                continue;
            }
            for (int row = from; row < to; row++) {
                if (v.isNull(row)) {
                    throw new InvalidInputException(v.getName(), "null primary-key value in row " + row);
                }
            }
        }
    }

    /** Fails if row {@code row} of {@code columns} (in table column order) has a null key value. */
    public void checkKeyNotNull(FieldVector[] columns, int row) {
        for (int k : keyColumns) {
            if (isNull(columns[k], row)) {
                throw new InvalidInputException(columns[k].getName(), "null primary-key value");
            }
        }
    }

    /**
     * The validity bit of a row just written, read at the buffer's address: Arrow's checked
     * {@code isNull} cost a twentieth of the row path. The row is within the vector's capacity.
     */
    private static boolean isNull(FieldVector v, int row) {
        if (v instanceof BaseFixedWidthVector || v instanceof BaseVariableWidthVector) {
            long validity = v.getValidityBufferAddress() + (row >>> 3);
            return (MemoryUtil.getByte(validity) & (1 << (row & 7))) == 0;
        }
        return v.isNull(row);
    }

    private static String typeMismatch(Field expected, Field actual) {
        if (!expected.getType().equals(actual.getType())) {
            return "type " + actual.getType() + " does not match the table's " + expected.getType();
        }
        List<Field> ec = expected.getChildren();
        List<Field> ac = actual.getChildren();
        if (ec.size() != ac.size()) {
            return "nested type has " + ac.size() + " children, the table's has " + ec.size();
        }
        for (int i = 0; i < ec.size(); i++) {
            String nested = typeMismatch(ec.get(i), ac.get(i));
            if (nested != null) {
                return "child " + ac.get(i).getName() + ": " + nested;
            }
        }
        return null;
    }

    private static String names(Schema schema) {
        return schema.getFields().stream().map(Field::getName).toList().toString();
    }
}
