package io.walsink.testing;

import java.util.Map;

/** One input row for tests: an upsert (or append) of {@code values}, or a delete of its key. */
public record RowOp(Map<String, Object> values, boolean delete) {
    public static RowOp put(Map<String, Object> values) {
        return new RowOp(values, false);
    }

    /** {@code key} holds the key columns only; the other columns are written as nulls. */
    public static RowOp delete(Map<String, Object> key) {
        return new RowOp(key, true);
    }
}
