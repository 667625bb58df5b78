package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.storage.LocalObjectStore;
import io.walsink.table.lookup.WalSinkLookupFunction;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.LogCapture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lookup joins on a walsink table in SQL on a MiniCluster: a bounded probe stream joined (inner
 * and left) against a table of base rows and published generations that update and delete keys,
 * equal to the model of the table; a probe after the table changed sees the change (without a
 * cache); and joins on anything but the primary key are refused while planning.
 */
class WalSinkSqlLookupJoinTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int BUCKETS = 4;
    private static final int KEYS = 60;
    static final String FULL_RELOAD = "lookup.full-cache.periodic-reload.interval";

    /** Released by the test once the first probe's row arrived and the table was changed. */
    private static volatile CountDownLatch changed;

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    /** id -> name as written; deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    @ParameterizedTest
    @ValueSource(strings = {"NONE", "PARTIAL", "FULL"})
    void innerAndLeftLookupJoinsEqualTheModel(String cache) throws Exception {
        long seed = System.nanoTime();
        System.out.println("WalSinkSqlLookupJoinTest seed " + seed + ", cache " + cache);
        Random random = new Random(seed);
        Path path = dir.resolve("t");
        LanceTables.create(path.toString(), schema(), List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
            for (int g = 1; g <= 4; g++) {
                writers.writeRandomAndPublish(random, 50, KEYS, "g" + g, model);
                if (g == 2) { // base rows, and SSTables above them
                    new TableCompaction(
                                    new TableLocation(new LocalObjectStore(path), path.toString(), Map.of()),
                                    allocator,
                                    CompactorOptions.defaults())
                            .run();
                    writers.reopen();
                }
            }
        }
        StreamTableEnvironment sql = SqlTables.env();
        declare(sql, path, cache, "lookup.partial-cache.max-rows", "1000", FULL_RELOAD, "1 h");
        // Every key twice (the second probe of a key may come from the cache), and keys never written.
        StringBuilder probes = new StringBuilder();
        for (long id = 0; id < KEYS + 5; id++) {
            probes.append(id == 0 ? "" : ", ")
                    .append("(")
                    .append(id)
                    .append("), (")
                    .append(id)
                    .append(")");
        }
        sql.executeSql(
                "CREATE TEMPORARY VIEW probe AS SELECT id, PROCTIME() AS proc FROM (VALUES " + probes + ") AS v(id)");

        List<String> inner = strings(SqlTables.collect(
                sql, "SELECT p.id, t.name FROM probe AS p JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.id = t.id"));
        List<String> left = strings(SqlTables.collect(
                sql, "SELECT p.id, t.name FROM probe AS p LEFT JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.id = t.id"));

        List<String> expectedInner = new ArrayList<>();
        List<String> expectedLeft = new ArrayList<>();
        for (long id = 0; id < KEYS + 5; id++) {
            for (int twice = 0; twice < 2; twice++) {
                String name = model.get(id);
                if (name != null) {
                    expectedInner.add(id + "=" + name);
                }
                expectedLeft.add(id + "=" + name);
            }
        }
        assertThat(model).as("seed %s", seed).isNotEmpty().hasSizeLessThan(KEYS);
        assertThat(inner).as("inner join, seed %s", seed).containsExactlyInAnyOrderElementsOf(expectedInner);
        assertThat(left).as("left join, seed %s", seed).containsExactlyInAnyOrderElementsOf(expectedLeft);
    }

    /**
     * Key 7 is probed twice; between the probes (after the first probe's row reached the test)
     * the table gets a new row for it. Without a cache the second probe reads the new row; with a
     * partial cache it gets the cached one, the staleness docs/guarantees.md describes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"NONE", "PARTIAL"})
    void aProbeSeesTheRowCommittedBeforeIt(String cache) throws Exception {
        Path path = dir.resolve("t");
        LanceTables.create(path.toString(), schema(), List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
            writers.write(7, "before", false);
            writers.publish();
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1); // no checkpoints: the collected rows reach the test as they are produced
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        declare(sql, path, cache, "lookup.partial-cache.expire-after-write", "1 h");
        changed = new CountDownLatch(1);
        DataStream<Long> keys = env.fromData(7L, 7L).map(new HoldTheSecondProbe());
        probeView(sql, keys);

        List<String> rows = new ArrayList<>();
        List<String> opened;
        try (LogCapture log = LogCapture.of(WalSinkLookupFunction.class, Level.INFO);
                CloseableIterator<Row> it = sql.executeSql(
                                // LEFT: the first probe yields a row even when the lookup finds none, so the test never
                                // waits
                                // forever
                                "SELECT p.f0, t.name FROM probe AS p LEFT JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.f0"
                                        + " = t.id")
                        .collect()) {
            rows.add(string(it.next()));
            try (RootAllocator allocator = new RootAllocator();
                    BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
                writers.write(7, "after", false);
                writers.publish();
            }
            changed.countDown();
            it.forEachRemaining(r -> rows.add(string(r)));
            opened = log.messages(Level.INFO);
        }
        assertThat(rows).containsExactly("7=before", cache.equals("NONE") ? "7=after" : "7=before");
        assertThat(opened).as("what the lookup reads, logged when it opens").anySatisfy(m -> assertThat(m)
                .contains(path.toString(), BUCKETS + " buckets", "key [id]")
                .contains(cache.equals("NONE") ? "no cache" : "PARTIAL cache"));
    }

    @Test
    void aJoinOnAnotherColumnOrOnPartOfTheKeyIsRefused() {
        Path single = dir.resolve("single");
        LanceTables.create(single.toString(), schema(), List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        Path composite = dir.resolve("composite");
        LanceTables.create(
                composite.toString(), schema(), List.of("id", "name"), TableSharding.bucket("id", BUCKETS), Map.of());
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(
                SqlTables.walsinkTable("single", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", single));
        sql.executeSql(SqlTables.walsinkTable(
                "composite", "id BIGINT, name STRING, PRIMARY KEY (id, name) NOT ENFORCED", composite));
        sql.executeSql("CREATE TEMPORARY VIEW probe AS SELECT id, name, PROCTIME() AS proc FROM (VALUES (1, 'a'))"
                + " AS v(id, name)");

        assertThatThrownBy(() -> sql.explainSql(
                        "SELECT * FROM probe AS p JOIN single FOR SYSTEM_TIME AS OF p.proc ON p.name = single.name"))
                .hasStackTraceContaining("must join on exactly its primary key [id]")
                .hasStackTraceContaining("but joins on [name]");
        assertThatThrownBy(() -> sql.explainSql("SELECT * FROM probe AS p JOIN composite FOR SYSTEM_TIME AS OF p.proc"
                        + " ON p.id = composite.id"))
                .hasStackTraceContaining("must join on exactly its primary key [id, name]")
                .hasStackTraceContaining("but joins on [id]");
        // The whole key, in either order, plans.
        assertThat(sql.explainSql("SELECT * FROM probe AS p JOIN composite FOR SYSTEM_TIME AS OF p.proc"
                        + " ON p.name = composite.name AND p.id = composite.id"))
                .contains("LookupJoin");
    }

    /** View {@code probe}: the keys as column {@code f0}, with a processing-time column {@code proc}. */
    static void probeView(StreamTableEnvironment sql, DataStream<Long> keys) {
        sql.createTemporaryView(
                "probe",
                sql.fromDataStream(
                        keys,
                        org.apache.flink.table.api.Schema.newBuilder()
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
    }

    /** Table {@code t} at {@code path} with the given cache and its settings (ignored by the other caches). */
    static void declare(StreamTableEnvironment sql, Path path, String cache, String... settings) {
        List<String> options = new ArrayList<>(List.of("lookup.cache", cache));
        options.addAll(List.of(settings));
        sql.executeSql(SqlTables.walsinkTable(
                "t", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", path, options.toArray(String[]::new)));
    }

    private static Schema schema() {
        return new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    }

    private static List<String> strings(List<Row> rows) {
        return rows.stream().map(WalSinkSqlLookupJoinTest::string).toList();
    }

    private static String string(Row row) {
        return row.getField(0) + "=" + row.getField(1);
    }

    /** Passes keys on; the second waits until the test has changed the table. */
    private static final class HoldTheSecondProbe implements MapFunction<Long, Long> {
        private int seen;

        @Override
        public Long map(Long key) throws InterruptedException {
            if (++seen == 2) {
                changed.await();
            }
            return key;
        }
    }
}
