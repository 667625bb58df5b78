package io.walsink.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.cli.WalsinkCli;
import io.walsink.flink.WalSink;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceDb.Query;
import io.walsink.testing.LanceDb.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * LanceDB's client (a newer Lance than lance-core 7.0.0) reads each demo's table as a LanceDB user
 * would, on its defaults: uncompacted (through its MemWAL scanner: base table plus the flushed
 * generations, whose primary-key indexes it opens) and after {@code walsink compact} (also the base
 * table alone). A full scan, a range filter on the key, a filter on another column and a point
 * lookup each equal the demo's model.
 */
class LanceDbReadsDemoTablesTest {
    @TempDir
    Path dir;

    /** A demo, its model, how LanceDB's row becomes the model's value, and a non-key filter with its meaning. */
    enum Demo {
        UPSERT(List.of("id", "value"), r -> r.get(1), "value LIKE '%7'", (k, v) -> v.endsWith("7")),
        CHANGELOG(List.of("id", "status"), r -> r.get(1), "status = 'status-8'", (k, v) -> v.equals("status-8")),
        SQL(List.of("id", "item", "qty"), r -> r.get(1) + "/" + r.get(2), "qty = 3", (k, v) -> v.endsWith("/3"));

        final List<String> columns;
        final Function<List<String>, String> value;
        final String otherFilter;
        final BiPredicate<Long, String> otherFilterHolds;

        Demo(
                List<String> columns,
                Function<List<String>, String> value,
                String otherFilter,
                BiPredicate<Long, String> otherFilterHolds) {
            this.columns = columns;
            this.value = value;
            this.otherFilter = otherFilter;
            this.otherFilterHolds = otherFilterHolds;
        }

        Map<Long, String> run(DemoArgs args) throws Exception {
            boolean matched =
                    switch (this) {
                        case UPSERT -> UpsertDemo.run(args);
                        case CHANGELOG -> ChangelogDemo.run(args);
                        case SQL -> SqlDemo.run(args);
                    };
            assertThat(matched).as("the demo's own read-back").isTrue();
            return switch (this) {
                case UPSERT -> new ChangeStream(args.keys()).model(args.rows());
                case CHANGELOG -> ChangelogDemo.model(args);
                case SQL -> SqlDemo.model(args);
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Demo.class)
    void lanceDbReadsTheDemoTableBeforeAndAfterCompaction(Demo demo) throws Exception {
        Path table = dir.resolve(demo.name().toLowerCase());
        int keys = 300;
        Map<Long, String> model = demo.run(new DemoArgs(table.toString(), 3_000, keys, 4));

        assertLanceDbReads(demo, table, model, keys, "uncompacted");

        Console.Run compact = Console.walsink("compact", table.toString());
        assertThat(compact.code()).as(compact.err()).isEqualTo(WalsinkCli.OK);
        assertLanceDbReads(demo, table, model, keys, "compacted");
        Result baseOnly = LanceDb.read(table, List.of(new Query("base", null, demo.columns, false)))
                .get("base");
        assertThat(baseOnly.error()).as("LanceDB's base-only read").isNull();
        assertThat(asModel(demo, baseOnly))
                .as("the base table alone, after compaction")
                .isEqualTo(model);
    }

    /**
     * A composite key (a BIGINT, b STRING) is indexed by its order-preserving encoding: LanceDB's
     * scan, a filter on one key column and a lookup of the whole key equal the model.
     */
    @Test
    void lanceDbReadsATableWithACompositeKey() throws Exception {
        Path table = dir.resolve("composite");
        long seed = System.nanoTime();
        System.out.println("composite-key table, seed " + seed);
        Random random = new Random(seed);
        List<Row> rows = new ArrayList<>();
        Map<String, String> model = new TreeMap<>();
        for (int i = 0; i < 2_000; i++) {
            long a = random.nextInt(20);
            String b = "k" + random.nextInt(30);
            String v = "v" + i;
            rows.add(Row.of(a, b, v));
            model.put(a + "|" + b, v);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        RowType type = RowType.of(
                new LogicalType[] {
                    new BigIntType(false), new VarCharType(false, VarCharType.MAX_LENGTH), VarCharType.STRING_TYPE
                },
                new String[] {"a", "b", "v"});
        env.fromData(rows)
                .setParallelism(1)
                .sinkTo(WalSink.forRows(type)
                        .path(table.toString())
                        .primaryKey("a", "b")
                        .createTableIfMissing(4)
                        .build())
                .uid("composite");
        env.execute("composite key");

        List<String> columns = List.of("a", "b", "v");
        Map.Entry<String, String> one = model.entrySet().iterator().next();
        String[] oneKey = one.getKey().split("\\|");
        Map<String, Result> read = LanceDb.read(
                table,
                List.of(
                        Query.of("all", null, columns),
                        Query.of("a", "a = 7", columns),
                        Query.of("point", "a = " + oneKey[0] + " AND b = '" + oneKey[1] + "'", columns)));
        read.forEach(
                (name, r) -> assertThat(r.error()).as("LanceDB's %s read", name).isNull());
        assertThat(byKey(read.get("all"))).isEqualTo(model);
        Map<String, String> aIs7 = new TreeMap<>(model);
        aIs7.keySet().removeIf(k -> !k.startsWith("7|"));
        assertThat(aIs7).isNotEmpty();
        assertThat(byKey(read.get("a"))).isEqualTo(aIs7);
        assertThat(byKey(read.get("point"))).isEqualTo(Map.of(one.getKey(), one.getValue()));
    }

    private static Map<String, String> byKey(Result result) {
        Map<String, String> rows = new TreeMap<>();
        for (List<String> row : result.rows()) {
            assertThat(rows.put(row.get(0) + "|" + row.get(1), row.get(2)))
                    .as("key returned twice")
                    .isNull();
        }
        return rows;
    }

    /** The four query shapes, each against what the model says it must return. */
    static void assertLanceDbReads(Demo demo, Path table, Map<Long, String> model, int keys, String state)
            throws Exception {
        long half = keys / 2;
        long present = model.keySet().iterator().next();
        long absent = missingKey(model, keys);
        Map<String, Result> read = LanceDb.read(
                table,
                List.of(
                        Query.of("all", null, demo.columns),
                        Query.of("range", "id >= " + half, demo.columns),
                        Query.of("other", demo.otherFilter, demo.columns),
                        Query.of("point", "id = " + present, demo.columns),
                        Query.of("absent", "id = " + absent, demo.columns)));
        for (Map.Entry<String, Result> r : read.entrySet()) {
            assertThat(r.getValue().error())
                    .as("LanceDB's %s read of the %s %s table", r.getKey(), state, demo)
                    .isNull();
        }
        assertThat(asModel(demo, read.get("all"))).as("full scan, %s", state).isEqualTo(model);
        assertThat(asModel(demo, read.get("range")))
                .as("range filter, %s", state)
                .isEqualTo(filter(model, (k, v) -> k >= half));
        Map<Long, String> other = filter(model, demo.otherFilterHolds);
        assertThat(other)
                .as("the non-key filter selects some rows of the model")
                .isNotEmpty();
        assertThat(asModel(demo, read.get("other")))
                .as("non-key filter, %s", state)
                .isEqualTo(other);
        assertThat(asModel(demo, read.get("point")))
                .as("point lookup, %s", state)
                .isEqualTo(Map.of(present, model.get(present)));
        assertThat(read.get("absent").rows())
                .as("lookup of a key not in the model, %s", state)
                .isEmpty();
    }

    /** A key the stream deleted (the changelog deletes every third key), else one it never wrote. */
    private static long missingKey(Map<Long, String> model, int keys) {
        for (long k = 0; k < keys; k++) {
            if (!model.containsKey(k)) {
                return k;
            }
        }
        return keys + 1L;
    }

    static Map<Long, String> asModel(Demo demo, Result result) {
        Map<Long, String> rows = new TreeMap<>();
        List<Long> duplicates = new ArrayList<>();
        for (List<String> row : result.rows()) {
            if (rows.put(Long.parseLong(row.get(0)), demo.value.apply(row)) != null) {
                duplicates.add(Long.parseLong(row.get(0)));
            }
        }
        assertThat(duplicates).as("keys LanceDB returned twice").isEmpty();
        return rows;
    }

    private static Map<Long, String> filter(Map<Long, String> model, BiPredicate<Long, String> keep) {
        Map<Long, String> kept = new TreeMap<>();
        model.forEach((k, v) -> {
            if (keep.test(k, v)) {
                kept.put(k, v);
            }
        });
        return kept;
    }
}
