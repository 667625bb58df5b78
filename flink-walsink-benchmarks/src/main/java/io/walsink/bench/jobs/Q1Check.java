package io.walsink.bench.jobs;

import io.walsink.bench.support.Figures;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.S3Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Whether a walsink run's table holds exactly what the stream should leave: every key once,
 * with the columns of its last change. A sink that dropped or reordered rows would look fast;
 * this is what keeps the benchmark honest.
 */
final class Q1Check {
    /** What a table held against the model; {@link #matches()} when nothing differs. */
    public record Outcome(long rows, long expectedRows, long missing, long stale, long inconsistent, String example) {
        public boolean matches() {
            return rows == expectedRows && missing == 0 && stale == 0 && inconsistent == 0;
        }

        String text() {
            return matches()
                    ? "yes (" + Figures.count(rows) + " keys)"
                    : String.format(
                            "NO: %,d rows of %,d expected, %,d keys missing, %,d stale, %,d inconsistent; e.g. %s",
                            rows, expectedRows, missing, stale, inconsistent, example);
        }
    }

    private Q1Check() {}

    /**
     * Reads the table in {@code mode} and compares it to the model: COMMITTED after a final
     * checkpoint published everything, LATEST (WAL tail included) when the job ended without one.
     */
    static Outcome verify(Path table, Q1Rows model, ReadMode mode) {
        List<long[]> found;
        try (SnapshotReader reader =
                SnapshotReader.open(table.toString(), S3Options.defaults(), WalSchemaProfile.SPEC)) {
            found = reader.read(mode, (batch, row) -> {
                long id = ((BigIntVector) batch.getVector("id")).get(row);
                String name = new String(((VarCharVector) batch.getVector("name")).get(row), StandardCharsets.UTF_8);
                long i = Long.parseLong(name.substring("bid-".length()));
                boolean consistent = model.keyOf(i) == id;
                for (int j = 1; j <= Q1Rows.VALUES; j++) {
                    BigIntVector v = (BigIntVector) batch.getVector("v" + j);
                    consistent &= !v.isNull(row) && v.get(row) == model.value(i, j);
                }
                return new long[] {id, i, consistent ? 1 : 0};
            });
        }
        return compare(found, model.lastChangePerKey());
    }

    /** @param found {key, change, 1 if its columns are those of the change} per row read */
    static Outcome compare(List<long[]> found, long[] lastPerKey) {
        long expected = 0;
        for (long last : lastPerKey) {
            expected += last >= 0 ? 1 : 0;
        }
        boolean[] seen = new boolean[lastPerKey.length];
        long stale = 0;
        long inconsistent = 0;
        String example = "";
        for (long[] r : found) {
            int key = (int) r[0];
            if (r[2] != 1 || key < 0 || key >= lastPerKey.length || seen[key]) {
                inconsistent++;
                example = example.isEmpty() ? "key " + r[0] + " holds change " + r[1] : example;
                continue;
            }
            seen[key] = true;
            if (r[1] != lastPerKey[key]) {
                stale++;
                example = example.isEmpty()
                        ? "key " + key + " holds change " + r[1] + ", expected " + lastPerKey[key]
                        : example;
            }
        }
        long missing = 0;
        for (int k = 0; k < lastPerKey.length; k++) {
            if (lastPerKey[k] >= 0 && !seen[k]) {
                missing++;
                example = example.isEmpty() ? "key " + k + " missing" : example;
            }
        }
        return new Outcome(found.size(), expected, missing, stale, inconsistent, example);
    }
}
