package io.walsink.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds Arrow batches from plain Java rows (Long, Integer, String, Double, Boolean, null; for a
 * struct a Map of field name to value, for a list a List, for a map a Map).
 */
public final class ArrowRows {
    private ArrowRows() {}

    /** A batch of {@code schema} holding {@code rows}; absent columns are null. Caller closes it. */
    public static VectorSchemaRoot batch(BufferAllocator allocator, Schema schema, List<Map<String, Object>> rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.allocateNew();
        for (int r = 0; r < rows.size(); r++) {
            for (FieldVector v : root.getFieldVectors()) {
                set(v, r, rows.get(r).get(v.getName()));
            }
        }
        root.setRowCount(rows.size());
        return root;
    }

    public static void set(FieldVector v, int row, Object value) {
        if (value == null && v instanceof ListVector list) { // maps too
            list.setNull(row);
            return;
        }
        if (value == null && v instanceof StructVector struct) {
            struct.setNull(row);
            return;
        }
        if (v instanceof MapVector map) {
            Map<?, ?> entries = (Map<?, ?>) value;
            int start = map.startNewValue(row);
            StructVector entry = (StructVector) map.getDataVector();
            int i = start;
            for (Map.Entry<?, ?> e : entries.entrySet()) {
                entry.setIndexDefined(i);
                set((FieldVector) entry.getChildByOrdinal(0), i, e.getKey());
                set((FieldVector) entry.getChildByOrdinal(1), i, e.getValue());
                i++;
            }
            map.endValue(row, entries.size());
            return;
        }
        if (v instanceof ListVector list) {
            List<?> elements = (List<?>) value;
            int start = list.startNewValue(row);
            for (int i = 0; i < elements.size(); i++) {
                set(list.getDataVector(), start + i, elements.get(i));
            }
            list.endValue(row, elements.size());
            return;
        }
        if (v instanceof StructVector struct) {
            struct.setIndexDefined(row);
            for (FieldVector child : struct.getChildrenFromFields()) {
                set(child, row, ((Map<?, ?>) value).get(child.getName()));
            }
            return;
        }
        if (value == null) {
            if (v instanceof BaseFixedWidthVector fixed) {
                fixed.setNull(row);
            } else if (v instanceof BaseVariableWidthVector variable) {
                variable.setNull(row);
            } else {
                throw new IllegalArgumentException("cannot set null in " + v.getField());
            }
            return;
        }
        if (v instanceof BigIntVector b) {
            b.setSafe(row, ((Number) value).longValue());
        } else if (v instanceof IntVector i) {
            i.setSafe(row, ((Number) value).intValue());
        } else if (v instanceof Float8Vector d) {
            d.setSafe(row, ((Number) value).doubleValue());
        } else if (v instanceof BitVector bit) {
            bit.setSafe(row, (Boolean) value ? 1 : 0);
        } else if (v instanceof VarCharVector s) {
            s.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
        } else {
            throw new IllegalArgumentException("unsupported test column " + v.getField());
        }
    }

    /** A nullable Arrow map column of non-null {@code key}s to nullable {@code value}s. */
    public static Field mapField(String name, ArrowType key, ArrowType value) {
        return new Field(
                name,
                FieldType.nullable(new ArrowType.Map(false)),
                List.of(new Field(
                        "entries",
                        FieldType.notNullable(ArrowType.Struct.INSTANCE),
                        List.of(Field.notNullable("key", key), Field.nullable("value", value)))));
    }
}
