package io.walsink.bench.read;

import io.walsink.bench.support.TextTable;
import io.walsink.format.table.TableLocation;
import io.walsink.read.lookup.KeyLookup;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Lookups per second against a local walsink table ({@link LookupTable}: base rows and unmerged
 * SSTables): {@link KeyLookup} called directly, and a SQL lookup join (one subtask) with
 * {@code lookup.cache} NONE, PARTIAL and FULL. Probes pick among {@code --hot-keys} keys spread
 * over the table (seeded), so a partial cache holding them all hits after each key's first probe.
 * A join's rate is net of a baseline job sending the same probes to the same sink without the
 * join (job start, source, sink); FULL's includes its one load of the table. The direct path
 * checks every row it finds against the value the key was written with.
 */
public final class LookupReport {
    public record Settings(
            long rows, int buckets, long updates, int sstables, long uncached, long cached, long hot, long seed) {}

    /** One way of looking keys up; {@code baselineNanos} is 0 for the direct path. */
    record Outcome(String path, long probes, long nanos, long baselineNanos) {
        double lookupsPerSecond() {
            long net = nanos - baselineNanos;
            return net <= 0 ? Double.NaN : probes * 1e9 / net;
        }
    }

    private LookupReport() {}

    public static List<Outcome> run(Path path, Settings s) throws Exception {
        System.err.println("LookupReport seed " + s.seed());
        int merged = LookupTable.build(path, s.rows(), s.buckets(), s.updates(), s.sstables());
        System.err.println("table built: " + merged + " generations merged into the base, then the updates");
        List<Outcome> outcomes = new ArrayList<>();
        outcomes.add(direct(path, s));
        outcomes.add(join(path, s, "NONE", s.uncached(), "'lookup.cache' = 'NONE'"));
        outcomes.add(join(
                path,
                s,
                "PARTIAL",
                s.cached(),
                "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '" + s.hot() + "'"));
        outcomes.add(join(
                path,
                s,
                "FULL",
                s.cached(),
                "'lookup.cache' = 'FULL', 'lookup.full-cache.periodic-reload.interval' = '1 h'"));
        return outcomes;
    }

    private static Outcome direct(Path path, Settings s) {
        try (BufferAllocator allocator = new RootAllocator();
                LocalObjectStore store = new LocalObjectStore(path);
                KeyLookup lookup =
                        new KeyLookup(new TableLocation(store, path.toString(), Map.of()), allocator, Duration.ZERO);
                VectorSchemaRoot keys = VectorSchemaRoot.create(
                        new Schema(List.of(lookup.schema().findField("id"))), allocator)) {
            HotKeys hot = new HotKeys(s.seed(), s.hot(), s.rows());
            keys.setRowCount(1);
            long start = System.nanoTime();
            for (long i = 0; i < s.uncached(); i++) {
                long id = hot.map(i);
                ((BigIntVector) keys.getVector(0)).setSafe(0, id);
                Object name = lookup.lookup(
                                keys,
                                0,
                                (batch, row) ->
                                        String.valueOf(batch.getVector("name").getObject(row)))
                        .orElse(null);
                if (!LookupTable.nameOf(id, s.updates()).equals(name)) {
                    throw new IllegalStateException("key " + id + " read as " + name);
                }
            }
            return new Outcome("KeyLookup, direct", s.uncached(), System.nanoTime() - start, 0);
        }
    }

    private static Outcome join(Path path, Settings s, String cache, long probes, String options) throws Exception {
        StreamExecutionEnvironment env = LookupTable.env();
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + path + "', " + options + ")");
        sql.executeSql("CREATE TABLE probed (id BIGINT, name STRING) WITH ('connector' = 'blackhole')");
        DataStream<Long> keys = env.fromSequence(0, probes - 1).map(new HotKeys(s.seed(), s.hot(), s.rows()));
        sql.createTemporaryView(
                "probe",
                sql.fromDataStream(
                        keys,
                        org.apache.flink.table.api.Schema.newBuilder()
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
        long baseline = timed(sql, "INSERT INTO probed SELECT f0, CAST(NULL AS STRING) FROM probe");
        long join = timed(
                sql,
                "INSERT INTO probed SELECT p.f0, t.name FROM probe AS p LEFT JOIN t FOR SYSTEM_TIME AS OF"
                        + " p.proc ON p.f0 = t.id");
        System.err.println("done: SQL join, cache " + cache);
        return new Outcome("SQL join, cache " + cache, probes, join, baseline);
    }

    private static long timed(StreamTableEnvironment sql, String statement) throws Exception {
        long start = System.nanoTime();
        sql.executeSql(statement).await();
        return System.nanoTime() - start;
    }

    public static String render(Settings s, List<Outcome> outcomes) {
        TextTable table = new TextTable("path", "probes", "job s", "baseline s", "lookups/s");
        for (Outcome o : outcomes) {
            table.row(
                    o.path(),
                    String.valueOf(o.probes()),
                    String.format("%.2f", o.nanos() / 1e9),
                    o.baselineNanos() == 0 ? "-" : String.format("%.2f", o.baselineNanos() / 1e9),
                    String.format("%.0f", o.lookupsPerSecond()));
        }
        return "Lookups: " + s.rows() + " keys, " + s.buckets() + " buckets, " + s.updates() + " keys updated in "
                + s.sstables() + " unmerged SSTables per shard, " + s.hot() + " hot keys, seed " + s.seed()
                + "; one join subtask; a join's rate is net of its baseline job\n" + table.render();
    }

    /** The i-th probe's key: one of {@code hot} keys spread over {@code [0, rows)}, picked by a seeded hash of i. */
    record HotKeys(long seed, long hot, long rows) implements MapFunction<Long, Long> {
        @Override
        public Long map(Long i) {
            long h = (i + seed) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
            return Math.floorMod(h, hot) * Math.max(1, rows / hot);
        }
    }
}
