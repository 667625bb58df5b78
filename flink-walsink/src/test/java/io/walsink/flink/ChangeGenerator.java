package io.walsink.flink;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * A deterministic stream of upserts and deletes over a key space, and its last-write-wins model.
 * With seed 0, change {@code i} touches key {@code (i * 7919) % keys} and every
 * {@code deleteEvery}-th change is a delete; with any other seed, key and delete are drawn from a
 * random source seeded with {@code seed + i} (about one change in {@code deleteEvery} deletes), so
 * change {@code i} is a pure function of {@code i} and a restored job re-sends exactly the same
 * changes. Values are {@code "v" + i}, so a value's number tells how recent it is.
 */
public record ChangeGenerator(int keys, int deleteEvery, long seed) implements java.io.Serializable {

    public ChangeGenerator(int keys, int deleteEvery) {
        this(keys, deleteEvery, 0);
    }

    public long keyOf(long i) {
        return seed == 0 ? (i * 7919) % keys : new SplittableRandom(seed + i).nextInt(keys);
    }

    public boolean isDelete(long i) {
        if (deleteEvery <= 0) {
            return false;
        }
        if (seed == 0) {
            return i % deleteEvery == deleteEvery - 1;
        }
        SplittableRandom random = new SplittableRandom(seed + i);
        random.nextInt(keys); // the draw keyOf uses
        return random.nextInt(deleteEvery) == 0;
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

    /** Per key, the numbers of the deletes among changes {@code 0 .. n-1}; keys never deleted are absent. */
    public Map<Long, NavigableSet<Long>> deletes(long n) {
        Map<Long, NavigableSet<Long>> deletes = new HashMap<>();
        for (long i = 0; i < n; i++) {
            if (isDelete(i)) {
                deletes.computeIfAbsent(keyOf(i), k -> new TreeSet<>()).add(i);
            }
        }
        return deletes;
    }
}
