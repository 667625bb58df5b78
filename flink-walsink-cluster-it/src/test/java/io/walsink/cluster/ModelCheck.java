package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.examples.ChangeStream;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.storage.S3Options;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A demo table against {@link ChangeStream}'s model, read in the test JVM by walsink's own reader
 * (base table and published SSTables) and by LanceDB's Node client, a reader independent of walsink.
 */
final class ModelCheck {
    private ModelCheck() {}

    /** The changes {@code first..last} (inclusive) whose models equal a table: a stopped job's range. */
    record Prefix(long first, long last) {}

    /** The table after the whole stream, read by walsink's reader. */
    static void assertIsTheModel(String table, S3Options s3, long rows, int keys) {
        assertThat(committed(table, s3, "value"))
                .as("table %s against the model of %d changes over %d keys", table, rows, keys)
                .containsExactlyInAnyOrderEntriesOf(new ChangeStream(keys).model(rows));
    }

    /** The committed rows through walsink's {@link TableReader}: id to {@code valueColumn}. */
    static Map<Long, String> committed(String table, S3Options s3, String valueColumn) {
        Map<Long, String> rows = new TreeMap<>();
        try (TableReader reader = TableReader.open(table, s3)) {
            reader.read(ReadMode.COMMITTED)
                    .rows()
                    .forEach(r -> putOnce(rows, (Long) r.get("id"), (String) r.get(valueColumn)));
        }
        return rows;
    }

    /** The rows LanceDB's default query returns (base table and MemWAL), id to {@code valueColumn}. */
    static Map<Long, String> lanceDb(Path table, String valueColumn) throws Exception {
        LanceDb.Result result = LanceDb.read(
                        table, List.of(new LanceDb.Query("all", null, List.of("id", valueColumn), null)))
                .get("all");
        if (result.failed()) {
            throw new AssertionError("LanceDB could not read " + table + ": " + result.error());
        }
        Map<Long, String> rows = new TreeMap<>();
        result.rows().forEach(r -> putOnce(rows, Long.parseLong(r.get(0)), r.get(1)));
        return rows;
    }

    /**
     * The {@code n} in {@code 0..rows} for which the model of changes {@code 0..n-1} equals
     * {@code actual}, as a range (a delete of an absent key leaves the model as it was): one pass,
     * counting the keys that differ. Fails when no prefix of the stream gives {@code actual}, naming
     * the closest one and keys that differ from it.
     */
    static Prefix prefix(ChangeStream changes, long rows, Map<Long, String> actual) {
        Map<Long, String> model = new HashMap<>();
        long differing = actual.size();
        long first = -1;
        long last = -1;
        long closest = 0;
        long fewest = differing;
        for (long n = 0; ; n++) {
            if (differing == 0) {
                first = first < 0 ? n : first;
                last = n;
            } else if (differing < fewest) {
                fewest = differing;
                closest = n;
            }
            if (n == rows) {
                if (first < 0) {
                    throw new AssertionError(mismatch(changes, rows, actual, closest, fewest));
                }
                return new Prefix(first, last);
            }
            long key = changes.keyOf(n);
            boolean differedBefore = !Objects.equals(model.get(key), actual.get(key));
            if (changes.isDelete(n)) {
                model.remove(key);
            } else {
                model.put(key, "value-" + n);
            }
            boolean differsNow = !Objects.equals(model.get(key), actual.get(key));
            differing += (differsNow ? 1 : 0) - (differedBefore ? 1 : 0);
        }
    }

    private static String mismatch(ChangeStream changes, long rows, Map<Long, String> actual, long n, long differing) {
        Map<Long, String> model = changes.model(n);
        StringBuilder keys = new StringBuilder();
        model.keySet().stream()
                .filter(k -> !actual.containsKey(k))
                .limit(5)
                .forEach(k -> keys.append(String.format("%n  key %d: absent, model %s", k, model.get(k))));
        actual.entrySet().stream()
                .filter(e -> !e.getValue().equals(model.get(e.getKey())))
                .limit(5)
                .forEach(e -> keys.append(
                        String.format("%n  key %d: %s, model %s", e.getKey(), e.getValue(), model.get(e.getKey()))));
        return String.format(
                "the table (%,d rows) is the model of no prefix of the %,d changes; the closest, the first %,d,"
                        + " differs in %,d keys:%s",
                actual.size(), rows, n, differing, keys);
    }

    /** A key twice in one read is a failed read: a reader must return one row per key. */
    private static void putOnce(Map<Long, String> rows, Long key, String value) {
        String before = rows.put(key, value);
        if (before != null) {
            throw new AssertionError("key " + key + " read twice: " + before + " and " + value);
        }
    }
}
