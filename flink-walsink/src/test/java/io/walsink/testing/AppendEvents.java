package io.walsink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableSharding;
import io.walsink.shard.ShardWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Rows {@code (id, name = "event-" + id)} of append-table tests: the table, the rows, their counts by id. */
public final class AppendEvents {
    public static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    private AppendEvents() {}

    /** A round-robin append table of {@code shards} shards with walsink's row key, as the sink creates it. */
    public static TableInfo create(String uri, int shards) {
        return LanceTables.create(
                uri,
                AppendRowKey.declare(AppendShards.declare(SCHEMA, shards)),
                List.of(AppendRowKey.COLUMN),
                TableSharding.unsharded(),
                Map.of());
    }

    /** Puts rows {@code [from, to)} into {@code writer}'s shard. */
    public static void put(ShardWriter writer, long from, long to, BufferAllocator allocator) {
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(SCHEMA, allocator)) {
            for (long id = from; id < to; id++) {
                int row = (int) (id - from);
                ((BigIntVector) rows.getVector("id")).setSafe(row, id);
                ((VarCharVector) rows.getVector("name")).setSafe(row, ("event-" + id).getBytes(StandardCharsets.UTF_8));
            }
            rows.setRowCount((int) (to - from));
            writer.put(rows);
        }
    }

    /** How often each id occurs, checking each row's name belongs to its id. */
    public static Map<Long, Long> of(Collection<Map<String, Object>> rows) {
        for (Map<String, Object> row : rows) {
            assertThat(String.valueOf(row.get("name"))).isEqualTo("event-" + row.get("id"));
        }
        return rows.stream()
                .collect(Collectors.groupingBy(
                        r -> ((Number) r.get("id")).longValue(), TreeMap::new, Collectors.counting()));
    }

    /**
     * The rows LanceDB's default read returns, counted by id, after checking that the read did not
     * fail and that {@code countRows()} (the base table alone) counts as many rows.
     */
    public static Map<Long, Long> lanceDb(Path table) throws IOException, InterruptedException {
        Map<String, LanceDb.Result> read = LanceDb.read(
                table,
                List.of(
                        LanceDb.Query.of("default", null, List.of("id", "name")),
                        LanceDb.Query.countRows("count", null)));
        assertThat(read.get("default").error()).isNull();
        List<List<String>> rows = read.get("default").rows();
        assertThat(read.get("count").rows()).containsExactly(List.of(Integer.toString(rows.size())));
        return of(rows.stream()
                .map(r -> Map.<String, Object>of("id", Long.parseLong(r.get(0)), "name", r.get(1)))
                .toList());
    }
}
