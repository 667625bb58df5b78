package io.walsink.examples;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * A deterministic stream of upserts and deletes: change {@code i} touches key
 * {@code (i * 7919) % keys}; every tenth change deletes it; values carry the change number, so
 * the table's content is known in advance ({@link #model}).
 * Public: the cluster test checks the tables the demo writes against the same model.
 */
public record ChangeStream(int keys) implements Serializable {

    public long keyOf(long i) {
        return (i * 7919) % keys;
    }

    public boolean isDelete(long i) {
        return i % 10 == 9;
    }

    public Row change(long i) {
        long key = keyOf(i);
        return isDelete(i)
                ? Row.ofKind(RowKind.DELETE, key, null, null)
                : Row.ofKind(RowKind.INSERT, key, "value-" + i, (double) (i % 1000) / 10);
    }

    /** The table after changes {@code 0 .. n-1}: id → value. */
    public Map<Long, String> model(long n) {
        Map<Long, String> model = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            if (isDelete(i)) {
                model.remove(keyOf(i));
            } else {
                model.put(keyOf(i), "value-" + i);
            }
        }
        return model;
    }
}
