package io.walsink.format.wal;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/** Rows of Arrow batches as comparable Java values (byte arrays as hex, text as strings). */
final class Rows {
    private Rows() {}

    static List<Map<String, Object>> of(List<VectorSchemaRoot> batches) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (VectorSchemaRoot batch : batches) {
            rows.addAll(of(batch));
        }
        return rows;
    }

    static List<Map<String, Object>> of(VectorSchemaRoot batch) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int r = 0; r < batch.getRowCount(); r++) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (FieldVector v : batch.getFieldVectors()) {
                row.put(v.getName(), comparable(v.getObject(r)));
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object comparable(Object value) {
        if (value instanceof byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof Text text) {
            return text.toString();
        }
        if (value instanceof List<?> list) {
            return list.stream().map(Rows::comparable).toList();
        }
        return value;
    }
}
