package io.walsink.examples;

import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * The walsink connector through Flink SQL: {@code CREATE TABLE ... WITH ('connector' = 'walsink')},
 * an {@code INSERT} of generated upserts (a bounded {@code datagen} sequence), then a
 * {@code SELECT} back, compared with what the upserts should have left.
 *
 * <pre>java ... io.walsink.examples.SqlDemo [--path DIR|s3://bucket/prefix] [--rows N] [--keys N] [--buckets N]</pre>
 */
public final class SqlDemo {
    private SqlDemo() {}

    public static void main(String[] argv) throws Exception {
        DemoArgs args = DemoArgs.parseOrExit("SqlDemo", argv, 20_000, 1_000);
        System.exit(run(args) ? 0 : 1);
    }

    /** Runs the demo; true when the table read back through SQL equals the model. */
    static boolean run(DemoArgs args) throws Exception {
        System.out.printf(
                "walsink SQL demo: %,d upserts over %,d keys into %s (%d buckets)%n",
                args.rows(), args.keys(), args.path(), args.buckets());
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        sql.getConfig().set("execution.checkpointing.interval", "500ms");
        sql.getConfig().set("parallelism.default", "1"); // one generator keeps each key's order
        sql.executeSql("CREATE TABLE orders (id BIGINT, item STRING, qty INT, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('connector' = 'walsink', 'path' = '" + args.path() + "', 'buckets' = '" + args.buckets()
                + "', 'sink.parallelism' = '2')");
        sql.executeSql("CREATE TEMPORARY TABLE gen (n BIGINT) WITH ('connector' = 'datagen',"
                + " 'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (args.rows() - 1)
                + "')");
        long started = System.nanoTime();
        sql.executeSql("INSERT INTO orders SELECT n % " + args.keys() + ", CONCAT('item-', CAST(n AS STRING)),"
                        + " CAST(n % 7 AS INT) FROM gen")
                .await();
        double seconds = (System.nanoTime() - started) / 1e9;

        Map<Long, String> actual = new TreeMap<>();
        TableResult result = sql.executeSql("SELECT id, item, qty FROM orders");
        try (CloseableIterator<Row> rows = result.collect()) {
            rows.forEachRemaining(r -> actual.put((Long) r.getField(0), r.getField(1) + "/" + r.getField(2)));
        }
        Map<Long, String> expected = new TreeMap<>();
        for (long n = 0; n < args.rows(); n++) { // the last upsert of each key wins
            expected.put(n % args.keys(), "item-" + n + "/" + n % 7);
        }
        boolean match = actual.equals(expected);
        System.out.println();
        System.out.println("walsink SQL demo summary");
        System.out.printf("  table            %s%n", args.path());
        System.out.printf("  upserts written  %,d in %.1f s (job start included)%n", args.rows(), seconds);
        System.out.printf("  rows expected    %,d (last upsert per key)%n", expected.size());
        System.out.printf("  rows selected    %,d (SELECT through the walsink connector)%n", actual.size());
        System.out.printf("  table matches    %s%n", match ? "YES" : "NO");
        return match;
    }
}
