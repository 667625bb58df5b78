package io.walsink.examples;

import io.walsink.flink.WalSink;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * A CDC-style changelog into walsink: every key is inserted, updated (UPDATE_BEFORE + UPDATE_AFTER,
 * as a CDC source emits them) and, for every third key, deleted. The table read back holds the
 * last value of each key and none of the deleted ones.
 *
 * <pre>java ... io.walsink.examples.ChangelogDemo [--path DIR|s3://bucket/prefix] [--rows N] [--keys N] [--buckets N]
 *     [--s3-endpoint URL] [--s3-region NAME] [--s3-path-style]</pre>
 */
public final class ChangelogDemo {
    static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "status"});

    private ChangelogDemo() {}

    public static void main(String[] argv) throws Exception {
        DemoArgs args = DemoArgs.parseOrExit("ChangelogDemo", argv, 30_000, 3_000);
        System.exit(run(args) ? 0 : 1);
    }

    /** Change {@code i} of the stream: per key an insert, updates, and (every third key) a final delete. */
    static Row change(long i, int keys, long rows) {
        long key = i % keys;
        long round = i / keys;
        long lastRound = (rows - 1 - key) / keys; // this key's last change
        if (round == 0) {
            return Row.ofKind(RowKind.INSERT, key, "created");
        }
        if (round == lastRound && key % 3 == 0) {
            return Row.ofKind(RowKind.DELETE, key, null);
        }
        return Row.ofKind(round % 2 == 0 ? RowKind.UPDATE_AFTER : RowKind.UPDATE_BEFORE, key, "status-" + round);
    }

    /** The changelog's end state: the last status of each key, deleted keys absent. */
    static Map<Long, String> model(DemoArgs args) {
        Map<Long, String> expected = new TreeMap<>();
        for (long i = 0; i < args.rows(); i++) {
            Row r = change(i, args.keys(), args.rows());
            switch (r.getKind()) {
                case INSERT, UPDATE_AFTER -> expected.put((Long) r.getField(0), (String) r.getField(1));
                case DELETE -> expected.remove((Long) r.getField(0));
                default -> {} // UPDATE_BEFORE retracts a value the next UPDATE_AFTER replaces
            }
        }
        return expected;
    }

    /** Runs the demo; true when the table read back equals the changelog's end state. */
    static boolean run(DemoArgs args) throws Exception {
        System.out.printf(
                "walsink changelog demo: %,d changes over %,d keys into %s (%d buckets)%n",
                args.rows(), args.keys(), args.path(), args.buckets());
        int keys = args.keys();
        long rows = args.rows();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(args.parallelism());
        env.enableCheckpointing(500);
        env.fromSequence(0, rows - 1)
                .setParallelism(1) // one generator task keeps per-key order
                .map(i -> change(i, keys, rows))
                .returns(Types.ROW_NAMED(new String[] {"id", "status"}, Types.LONG, Types.STRING))
                .setParallelism(1)
                .map(new Progress(rows))
                .setParallelism(1)
                .sinkTo(args.sink(WalSink.forRows(ROW)).build())
                .uid("walsink-changelog-demo");
        env.execute("walsink changelog demo");

        Map<Long, String> expected = model(args);
        Map<Long, String> actual = new TreeMap<>();
        try (TableReader reader = TableReader.open(args.path(), args.s3())) {
            reader.read(ReadMode.COMMITTED)
                    .rows()
                    .forEach(r -> actual.put((Long) r.get("id"), (String) r.get("status")));
        }
        long deleted = expected.keySet().size() < keys ? keys - expected.size() : 0;
        long deletedPresent =
                actual.keySet().stream().filter(k -> !expected.containsKey(k)).count();
        boolean match = actual.equals(expected);
        System.out.println();
        System.out.println("walsink changelog demo summary");
        System.out.printf("  table            %s%n", args.path());
        System.out.printf("  rows expected    %,d (last value per key)%n", expected.size());
        System.out.printf("  rows in table    %,d%n", actual.size());
        System.out.printf("  deleted keys     %,d, of which still present: %d%n", deleted, deletedPresent);
        System.out.printf("  table matches    %s%n", match ? "YES" : "NO");
        return match;
    }
}
