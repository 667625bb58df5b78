package io.walsink.cli;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.ArrowRows;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code scan --format json} prints struct, list-of-struct and map columns as JSON objects and arrays. */
class WalsinkCliNestedScanTest {
    private static final Field INT = Field.nullable("qty", new ArrowType.Int(32, true));
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            new Field(
                    "addr",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(
                            Field.nullable("city", ArrowType.Utf8.INSTANCE),
                            Field.nullable("zip", new ArrowType.Int(32, true)))),
            new Field(
                    "items",
                    FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(ArrowType.Struct.INSTANCE),
                            List.of(Field.nullable("sku", ArrowType.Utf8.INSTANCE), INT)))),
            ArrowRows.mapField("attrs", ArrowType.Utf8.INSTANCE, new ArrowType.Int(32, true))));

    private static final List<String> COLUMNS = List.of("id", "addr", "items", "attrs");

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    @Test
    void scanPrintsNestedColumnsAsJson() throws Exception {
        String uri = dir.resolve("nested").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        MemWalTable table = new MemWalTable(
                uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocators.allocator());
        Map<String, Object> nullValue = new LinkedHashMap<>();
        nullValue.put("k", null);
        List<RowOp> base = List.of(
                put(1, Map.of("city", "Oslo", "zip", 150), List.of(Map.of("sku", "a", "qty", 2)), Map.of("k", 1)),
                put(2, null, null, null));
        List<RowOp> gen1 = List.of(
                put(2, struct(null, 7), Arrays.asList(struct2("b", null), null), nullValue),
                put(3, null, List.of(), Map.of()),
                RowOp.delete(row("id", 1L)));
        List<RowOp> tail = List.of(put(4, struct("Rome", null), null, Map.of("x", 9)));
        table.writeBase(base);
        MemWalTable.Shard shard = table.shard();
        shard.flush(gen1, 4);
        shard.publish();
        shard.walEntry(tail);

        RowModel committed = new RowModel(COLUMNS, List.of("id")).apply(base).apply(gen1);
        assertThat(scan(uri, "committed")).containsExactlyInAnyOrderElementsOf(committed.rows());
        assertThat(scan(uri, "latest"))
                .containsExactlyInAnyOrderElementsOf(new RowModel(COLUMNS, List.of("id"))
                        .apply(base)
                        .apply(gen1)
                        .apply(tail)
                        .rows());
    }

    private static RowOp put(long id, Map<String, Object> addr, List<?> items, Map<String, ?> attrs) {
        return RowOp.put(row("id", id, "addr", addr, "items", items, "attrs", attrs));
    }

    private static Map<String, Object> struct(String city, Integer zip) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("city", city);
        s.put("zip", zip);
        return s;
    }

    private static Map<String, Object> struct2(String sku, Integer qty) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("sku", sku);
        s.put("qty", qty);
        return s;
    }

    /** The scan's JSON rows as plain values: objects as maps, arrays as lists, the key as Long. */
    private static List<Map<String, Object>> scan(String uri, String mode) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new WalsinkCli(o, e).run("scan", uri, "--mode", mode, "--format", "json");
        }
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        ObjectMapper json = new ObjectMapper();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (JsonNode n : json.readTree(out.toString(StandardCharsets.UTF_8))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> row = json.convertValue(n, LinkedHashMap.class);
            row.put("id", n.get("id").asLong());
            rows.add(row);
        }
        return rows;
    }
}
