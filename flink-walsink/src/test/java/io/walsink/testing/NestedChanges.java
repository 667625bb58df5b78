package io.walsink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.LocalObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * A seeded changelog of rows with nested columns, and the table it should leave: {@code id BIGINT}
 * (the key), {@code addr ROW<city STRING, zip INT>}, {@code items ARRAY<ROW<sku STRING, qty INT>>},
 * {@code attrs MAP<STRING, INT>} and {@code tags ARRAY<STRING>}. Values have nulls at every level
 * (a null row, a null field in a row, a null or empty list, a null element, a null map value).
 * Rows of every reader are compared in one plain form, {@link #plain}: a row's nested ROW as a map
 * of field name to value, lists as lists, maps as maps, integers as Integer, the key as Long.
 */
public final class NestedChanges {
    public static final List<String> COLUMNS = List.of("id", "addr", "items", "attrs", "tags");
    public static final String SQL_COLUMNS = "id BIGINT, addr ROW<city STRING, zip INT>,"
            + " items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, tags ARRAY<STRING>";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Row> changes = new ArrayList<>();
    private final Map<Long, Row> model = new TreeMap<>();

    /** {@code count} upserts and deletes over {@code keys} keys; every key ends upserted at least once. */
    public NestedChanges(long seed, int keys, int count) {
        Random random = new Random(seed);
        for (int i = 0; i < count; i++) {
            long id = random.nextInt(keys);
            boolean delete = model.containsKey(id) && random.nextInt(5) == 0;
            if (delete) {
                changes.add(Row.ofKind(RowKind.DELETE, id, null, null, null, null));
                model.remove(id);
            } else {
                Row row = Row.ofKind(RowKind.INSERT, id, addr(random), items(random), attrs(random), tags(random));
                changes.add(row);
                model.put(id, row);
            }
        }
    }

    /** 300 changes over 40 keys from the seed in {@code walsink.test.seed}, or a new one; prints it. */
    public static NestedChanges seeded(String test) {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + " (replay with -Dwalsink.test.seed=" + seed + ")");
        return new NestedChanges(seed, 40, 300);
    }

    public static RowType rowType() {
        RowType item =
                RowType.of(new LogicalType[] {VarCharType.STRING_TYPE, new IntType()}, new String[] {"sku", "qty"});
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    RowType.of(
                            new LogicalType[] {VarCharType.STRING_TYPE, new IntType()}, new String[] {"city", "zip"}),
                    new ArrayType(item),
                    new MapType(VarCharType.STRING_TYPE, new IntType()),
                    new ArrayType(VarCharType.STRING_TYPE)
                },
                COLUMNS.toArray(new String[0]));
    }

    /** The Flink type information of {@link #changes()}. */
    public static TypeInformation<Row> typeInfo() {
        TypeInformation<Row> item = Types.ROW_NAMED(new String[] {"sku", "qty"}, Types.STRING, Types.INT);
        return Types.ROW_NAMED(
                COLUMNS.toArray(new String[0]),
                Types.LONG,
                Types.ROW_NAMED(new String[] {"city", "zip"}, Types.STRING, Types.INT),
                Types.OBJECT_ARRAY(item),
                Types.MAP(Types.STRING, Types.INT),
                Types.OBJECT_ARRAY(Types.STRING));
    }

    /**
     * The local table at {@code path} read equal to {@code expected} by LanceDB's default read, and
     * by lance-core's merged read of the base table and the published SSTables (deleted keys read
     * as rows of nulls there: lance-core 7.0.0 ignores {@code _tombstone}); once {@code compacted},
     * by both of them reading the base table alone too.
     */
    public static void assertReadByLanceDbAndLanceCore(
            Path path, Map<Long, Map<String, Object>> expected, boolean compacted) throws Exception {
        assertThat(lanceDb(path, null)).as("LanceDB's default read").isEqualTo(expected);
        if (compacted) {
            assertThat(lanceDb(path, false))
                    .as("LanceDB's read of the base table")
                    .isEqualTo(expected);
        }
        try (RootAllocator allocator = new RootAllocator()) {
            LocalObjectStore store = new LocalObjectStore(path);
            List<UUID> shards = new SnapshotReader(
                            new TableLocation(store, path.toString(), Map.of()), WalSchemaProfile.SPEC, allocator)
                    .shards().stream().toList();
            Map<Long, Map<String, Object>> merged =
                    byKey(LanceOracle.scanPublished(allocator, path.toString(), Map.of(), store, shards, COLUMNS));
            merged.forEach((id, row) -> {
                if (!expected.containsKey(id)) {
                    assertThat(row.values().stream().skip(1))
                            .as("deleted key " + id)
                            .containsOnlyNulls();
                }
            });
            merged.keySet().retainAll(expected.keySet());
            assertThat(merged).as("lance-core's merged read").isEqualTo(expected);
            if (compacted) {
                assertThat(byKey(LanceRows.scan(allocator, path.toString(), Map.of())))
                        .as("lance-core's read of the base table")
                        .isEqualTo(expected);
            }
        }
    }

    private static Map<Long, Map<String, Object>> lanceDb(Path path, Boolean lsm) throws Exception {
        LanceDb.Query all = new LanceDb.Query("all", null, COLUMNS, lsm);
        return fromLanceDb(LanceDb.read(path, List.of(all)).get("all"));
    }

    /** The changes in order, as Rows of {@link #rowType()} (external values: Row, Row[], Map, String[]). */
    public List<Row> changes() {
        return changes;
    }

    /** What the changes leave, in {@link #plain} form, by key. */
    public Map<Long, Map<String, Object>> expected() {
        Map<Long, Map<String, Object>> expected = new TreeMap<>();
        model.forEach((id, row) -> expected.put(id, plain(row)));
        return expected;
    }

    /** A Row of {@link #rowType()} (as built here or collected from a SQL SELECT) in plain form. */
    public static Map<String, Object> plain(Row row) {
        Map<String, Object> plain = new LinkedHashMap<>();
        plain.put("id", ((Number) row.getField(0)).longValue());
        plain.put("addr", struct((Row) row.getField(1), "city", "zip"));
        Object[] items = (Object[]) row.getField(2);
        plain.put(
                "items",
                items == null
                        ? null
                        : Arrays.stream(items)
                                .map(r -> struct((Row) r, "sku", "qty"))
                                .toList());
        Map<?, ?> attrs = (Map<?, ?>) row.getField(3);
        plain.put("attrs", attrs == null ? null : new HashMap<>(attrs));
        Object[] tags = (Object[]) row.getField(4);
        plain.put("tags", tags == null ? null : Arrays.asList(tags));
        return plain;
    }

    /** Rows read by lance-core or walsink's readers ({@code RowValues}' form) by key, the columns above only. */
    public static Map<Long, Map<String, Object>> byKey(List<Map<String, Object>> rows) {
        Map<Long, Map<String, Object>> byKey = new TreeMap<>();
        for (Map<String, Object> row : rows) {
            Map<String, Object> plain = new LinkedHashMap<>();
            COLUMNS.forEach(c -> plain.put(c, normalize(row.get(c))));
            plain.put("id", ((Number) row.get("id")).longValue());
            if (byKey.put((Long) plain.get("id"), plain) != null) {
                throw new AssertionError("key " + plain.get("id") + " read twice: " + rows);
            }
        }
        return byKey;
    }

    /** LanceDB's answer to a query of {@link #COLUMNS} (nested values as JSON text) by key. */
    public static Map<Long, Map<String, Object>> fromLanceDb(LanceDb.Result result) {
        if (result.failed()) {
            throw new AssertionError("LanceDB failed: " + result.error());
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (List<String> values : result.rows()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", Long.parseLong(values.get(0)));
            for (int c = 1; c < COLUMNS.size(); c++) {
                row.put(COLUMNS.get(c), values.get(c) == null ? null : fromJson(values.get(c)));
            }
            rows.add(row);
        }
        return byKey(rows);
    }

    private static Object fromJson(String text) {
        try {
            return fromJson(JSON.readTree(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object fromJson(JsonNode node) {
        if (node.isNull()) {
            return null;
        } else if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            node.fields().forEachRemaining(e -> map.put(e.getKey(), fromJson(e.getValue())));
            return map;
        } else if (node.isArray()) {
            List<Object> list = new ArrayList<>();
            node.forEach(v -> list.add(fromJson(v)));
            return list;
        } else if (node.isIntegralNumber()) {
            return node.asInt();
        }
        return node.asText();
    }

    /** Maps compare by content whatever their class; struct fields keep their order. */
    private static Object normalize(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> plain = new LinkedHashMap<>();
            map.forEach((k, v) -> plain.put(k, normalize(v)));
            return plain;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(NestedChanges::normalize).toList();
        }
        return value;
    }

    private static Map<String, Object> struct(Row row, String a, String b) {
        if (row == null) {
            return null;
        }
        Map<String, Object> plain = new LinkedHashMap<>();
        plain.put(a, row.getField(0));
        plain.put(b, row.getField(1));
        return plain;
    }

    private static Row addr(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return null;
            case 1:
                return Row.of("city-" + random.nextInt(10), null);
            default:
                return Row.of(random.nextBoolean() ? null : "city-" + random.nextInt(10), random.nextInt(99_999));
        }
    }

    private static Row[] items(Random random) {
        int n = random.nextInt(6) - 1; // -1: null, 0: empty
        if (n < 0) {
            return null;
        }
        Row[] items = new Row[n];
        for (int i = 0; i < n; i++) {
            items[i] = random.nextInt(6) == 0
                    ? null
                    : Row.of("sku-" + random.nextInt(100), random.nextInt(4) == 0 ? null : random.nextInt(50));
        }
        return items;
    }

    private static Map<String, Integer> attrs(Random random) {
        int n = random.nextInt(5) - 1;
        if (n < 0) {
            return null;
        }
        Map<String, Integer> attrs = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            attrs.put("k" + random.nextInt(8), random.nextInt(4) == 0 ? null : random.nextInt(1000));
        }
        return attrs;
    }

    private static String[] tags(Random random) {
        int n = random.nextInt(4) - 1;
        if (n < 0) {
            return null;
        }
        String[] tags = new String[n];
        for (int i = 0; i < n; i++) {
            tags[i] = random.nextInt(5) == 0 ? null : "t" + random.nextInt(20);
        }
        return tags;
    }
}
