package io.walsink.examples;

import io.walsink.storage.S3Options;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * The walsink connector through Flink SQL: {@code CREATE TABLE ... WITH ('connector' = 'walsink')},
 * an {@code INSERT} of generated upserts (a bounded {@code datagen} sequence), then a
 * {@code SELECT} back, compared with what the upserts should have left.
 *
 * <pre>java ... io.walsink.examples.SqlDemo [--path DIR|s3://bucket/prefix] [--rows N] [--keys N] [--buckets N]
 *     [--s3-endpoint URL] [--s3-region NAME] [--s3-path-style]</pre>
 *
 * The S3 flags become the table's {@code s3.*} options in the {@code CREATE TABLE} statement.
 */
public final class SqlDemo {
    private SqlDemo() {}

    public static void main(String[] argv) throws Exception {
        DemoArgs args = DemoArgs.parseOrExit("SqlDemo", argv, 20_000, 1_000);
        System.exit(run(args) ? 0 : 1);
    }

    /** The table the INSERT leaves: per key its last upsert, as {@code item/qty}. */
    static Map<Long, String> model(DemoArgs args) {
        Map<Long, String> expected = new TreeMap<>();
        for (long n = 0; n < args.rows(); n++) { // the last upsert of each key wins
            expected.put(n % args.keys(), "item-" + n + "/" + n % 7);
        }
        return expected;
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
                + "', 'sink.parallelism' = '" + args.parallelism() + "'" + maintenance(args) + s3Options(args.s3())
                + ")");
        sql.createTemporarySystemFunction("progress", new ProgressFunction(args.rows()));
        sql.executeSql("CREATE TEMPORARY TABLE gen (n BIGINT) WITH ('connector' = 'datagen',"
                + " 'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '" + (args.rows() - 1)
                + "')");
        long started = System.nanoTime();
        sql.executeSql("INSERT INTO orders SELECT progress(n) % " + args.keys()
                        + ", CONCAT('item-', CAST(n AS STRING)), CAST(n % 7 AS INT) FROM gen")
                .await();
        double seconds = (System.nanoTime() - started) / 1e9;

        Map<Long, String> actual = new TreeMap<>();
        // The bounded snapshot: in streaming mode a SELECT would otherwise follow the table forever.
        TableResult result =
                sql.executeSql("SELECT id, item, qty FROM orders /*+ OPTIONS('scan.startup-mode' = 'snapshot') */");
        try (CloseableIterator<Row> rows = result.collect()) {
            rows.forEachRemaining(r -> actual.put((Long) r.getField(0), r.getField(1) + "/" + r.getField(2)));
        }
        Map<Long, String> expected = model(args);
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

    private static String maintenance(DemoArgs args) {
        StringBuilder with = new StringBuilder();
        if (args.maintenanceSeconds() > 0) {
            with.append(", 'sink.maintenance.interval' = '")
                    .append(args.maintenanceSeconds())
                    .append("s'");
        }
        args.sinkOptions().forEach((key, value) -> with.append(", '")
                .append(key)
                .append("' = '")
                .append(value.replace("'", "''"))
                .append("'"));
        return with.toString();
    }

    /** The demo's S3 flags as the connector's {@code s3.*} options (credentials: the AWS default chain). */
    static String s3Options(S3Options s3) {
        StringBuilder with = new StringBuilder();
        if (s3.endpoint() != null) {
            with.append(", 's3.endpoint' = '").append(s3.endpoint()).append('\'');
        }
        if (s3.region() != null) {
            with.append(", 's3.region' = '").append(s3.region()).append('\'');
        }
        if (s3.pathStyleAccess()) {
            with.append(", 's3.path-style-access' = 'true'");
        }
        return with.toString();
    }

    /**
     * {@code progress(n)}: returns {@code n} and prints how far the sequence got every tenth of the
     * run. Stateless (it reads the position from the sequence value), so it prints right however
     * often the planner evaluates it.
     */
    public static final class ProgressFunction extends ScalarFunction {
        private final long total;
        private final long step;

        ProgressFunction(long total) {
            this.total = total;
            this.step = Math.max(1, total / 10);
        }

        public Long eval(Long n) { // boxed: the sequence column is nullable in SQL's eyes
            long done = n == null ? 0 : n + 1;
            if (done > 0 && (done % step == 0 || done == total)) {
                System.out.printf("  generated %,d of %,d upserts (%d%%)%n", done, total, done * 100 / total);
            }
            return n;
        }
    }
}
