package io.walsink.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expected table: applies {@link RowOp}s in recency order with last-write-wins per key and
 * deletes, independently of the code under test. Keys compare column by column with
 * {@link Comparable} values, which matches the key-byte order for the ASCII strings and integers
 * tests use. Without key columns every put is kept in order (append-only).
 */
public final class RowModel {
    private final List<String> columns;
    private final List<String> key;
    private final TreeMap<List<Comparable<Object>>, Map<String, Object>> rows = new TreeMap<>(RowModel::compareKeys);
    private final List<Map<String, Object>> appended = new ArrayList<>();

    public RowModel(List<String> columns, List<String> key) {
        this.columns = List.copyOf(columns);
        this.key = List.copyOf(key);
    }

    public RowModel apply(List<RowOp> ops) {
        ops.forEach(this::apply);
        return this;
    }

    @SuppressWarnings("unchecked")
    public RowModel apply(RowOp op) {
        Map<String, Object> full = new LinkedHashMap<>();
        for (String c : columns) {
            full.put(c, op.delete() && !key.contains(c) ? null : op.values().get(c));
        }
        if (key.isEmpty()) {
            if (!op.delete()) {
                appended.add(full);
            }
            return this;
        }
        List<Comparable<Object>> k = new ArrayList<>();
        for (String c : key) {
            k.add((Comparable<Object>) op.values().get(c));
        }
        if (op.delete()) {
            rows.remove(k);
        } else {
            rows.put(k, full);
        }
        return this;
    }

    /** Live rows in key order (insertion order for append-only). */
    public List<Map<String, Object>> rows() {
        return key.isEmpty() ? List.copyOf(appended) : List.copyOf(rows.values());
    }

    private static int compareKeys(List<Comparable<Object>> a, List<Comparable<Object>> b) {
        for (int i = 0; i < a.size(); i++) {
            int c = Comparator.<Comparable<Object>>naturalOrder().compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
