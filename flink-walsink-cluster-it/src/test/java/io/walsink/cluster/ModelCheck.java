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
     * {@code actual}, as a range (a delete of an absent key leaves the model as it was), or null
     * when no prefix of the stream gives {@code actual}: one pass, counting the keys that differ.
     */
    static Prefix prefix(ChangeStream changes, long rows, Map<Long, String> actual) {
        Map<Long, String> model = new HashMap<>();
        long differing = actual.size();
        long first = -1;
        long last = -1;
        for (long n = 0; ; n++) {
            if (differing == 0) {
                first = first < 0 ? n : first;
                last = n;
            }
            if (n == rows) {
                return first < 0 ? null : new Prefix(first, last);
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

    /** A key twice in one read is a failed read: a reader must return one row per key. */
    private static void putOnce(Map<Long, String> rows, Long key, String value) {
        String before = rows.put(key, value);
        if (before != null) {
            throw new AssertionError("key " + key + " read twice: " + before + " and " + value);
        }
    }
}
