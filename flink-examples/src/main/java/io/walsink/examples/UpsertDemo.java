package io.walsink.examples;

import io.walsink.flink.WalSink;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;

/**
 * Writes a deterministic stream of upserts and deletes into a MemWAL table with checkpoints on,
 * then reads the table back and says whether it equals what the stream should have produced.
 *
 * <pre>mvn -B -Pdemo -DskipTests verify [-Ddemo.args="--rows 1000000 --keys 50000"]</pre>
 */
public final class UpsertDemo {
    static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, new DoubleType()},
            new String[] {"id", "value", "score"});

    private UpsertDemo() {}

    public static void main(String[] argv) throws Exception {
        DemoArgs args = DemoArgs.parseOrExit("UpsertDemo", argv, 200_000, 10_000);
        System.exit(run(args) ? 0 : 1);
    }

    /** Runs the demo; true when the table read back equals the model of the stream. */
    static boolean run(DemoArgs args) throws Exception {
        System.out.printf(
                "walsink demo: %,d changes over %,d keys into %s (%d buckets)%n",
                args.rows(), args.keys(), args.path(), args.buckets());
        ChangeStream changes = new ChangeStream(args.keys());
        long started = System.nanoTime();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(args.parallelism());
        env.enableCheckpointing(500);
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(
                changes::change,
                args.rows(),
                args.rate() > 0 ? RateLimiterStrategy.perSecond(args.rate()) : RateLimiterStrategy.noOp(),
                Types.ROW_NAMED(new String[] {"id", "value", "score"}, Types.LONG, Types.STRING, Types.DOUBLE));
        // uids: a savepoint taken at one parallelism restores at another (flink run -s ... --parallelism N)
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .uid("changes")
                .setParallelism(1) // one generator task keeps per-key order; checkpointed, so a restore resumes it
                .map(new Progress(args.rows()))
                .uid("progress")
                .setParallelism(1)
                .sinkTo(args.sink(WalSink.forRows(ROW)).build())
                .uid("walsink-demo");
        JobExecutionResult result = env.execute("walsink upsert demo");
        if (!result.isJobExecutionResult()) {
            // flink run -d: the job runs on in the cluster, there is nothing to read back yet
            System.out.printf(
                    "walsink demo: job %s submitted detached; the table is not read back%n", result.getJobID());
            return true;
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        Map<Long, String> expected = changes.model(args.rows());
        Map<Long, String> actual = readBack(args);
        boolean match = actual.equals(expected);
        System.out.println();
        System.out.println("walsink demo summary");
        System.out.printf("  table            %s%n", args.path());
        System.out.printf(
                "  changes written  %,d in %.1f s (%,.0f changes/s, job start included)%n",
                args.rows(), seconds, args.rows() / seconds);
        System.out.printf("  rows expected    %,d (last write per key, deleted keys absent)%n", expected.size());
        System.out.printf("  rows in table    %,d (read back: base table + published SSTables)%n", actual.size());
        System.out.printf("  table matches    %s%n", match ? "YES" : "NO");
        if (!match) {
            report(expected, actual);
        }
        return match;
    }

    private static Map<Long, String> readBack(DemoArgs args) {
        Map<Long, String> rows = new TreeMap<>();
        try (TableReader reader = TableReader.open(args.path(), args.s3())) {
            reader.read(ReadMode.COMMITTED).rows().forEach(r -> rows.put((Long) r.get("id"), (String) r.get("value")));
        }
        return rows;
    }

    private static void report(Map<Long, String> expected, Map<Long, String> actual) {
        int shown = 0;
        for (Map.Entry<Long, String> e : expected.entrySet()) {
            String got = actual.get(e.getKey());
            if (!e.getValue().equals(got) && shown++ < 10) {
                System.out.printf("  key %d: expected %s, found %s%n", e.getKey(), e.getValue(), got);
            }
        }
        for (Long key : actual.keySet()) {
            if (!expected.containsKey(key) && shown++ < 20) {
                System.out.printf("  key %d: expected absent, found %s%n", key, actual.get(key));
            }
        }
    }
}
