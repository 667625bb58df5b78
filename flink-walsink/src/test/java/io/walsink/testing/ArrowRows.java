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
import org.apache.arrow.vector.types.pojo.Schema;

/** Builds Arrow batches from plain Java rows (Long, Integer, String, Double, Boolean, null). */
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
}
