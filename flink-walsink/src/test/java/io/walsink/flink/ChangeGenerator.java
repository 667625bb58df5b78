package io.walsink.flink;

import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * A deterministic stream of upserts and deletes over a key space, and its last-write-wins model.
 * Change {@code i} touches key {@code (i * 7919) % keys}; every {@code deleteEvery}-th change is a
 * delete; values are {@code "v" + i}, so a value's number tells how recent it is.
 */
public record ChangeGenerator(int keys, int deleteEvery) implements java.io.Serializable {

    public long keyOf(long i) {
        return (i * 7919) % keys;
    }

    public boolean isDelete(long i) {
        return deleteEvery > 0 && i % deleteEvery == deleteEvery - 1;
    }

    public RowData change(long i) {
        long key = keyOf(i);
        return isDelete(i)
                ? GenericRowData.ofKind(RowKind.DELETE, key, null)
                : GenericRowData.of(key, StringData.fromString("v" + i));
    }

    /** The table after changes {@code 0 .. n-1} in order. */
    public Map<Long, String> model(long n) {
        Map<Long, String> model = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            if (isDelete(i)) {
                model.remove(keyOf(i));
            } else {
                model.put(keyOf(i), "v" + i);
            }
        }
        return model;
    }
}
