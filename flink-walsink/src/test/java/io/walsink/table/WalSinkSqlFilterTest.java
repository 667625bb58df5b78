package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.table.scan.TableScanRestoreTest;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filters pushed into the bounded scan narrow its base rows only: a key whose newer row above the
 * base fails the filter stays hidden (its older base row, which passes, is not resurrected), a key
 * moved into the filter by a newer row is found, and every query equals the model filtered.
 */
class WalSinkSqlFilterTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    /** id -> name (null allowed); deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    @Test
    void pushedFiltersEqualTheModelAcrossUpdatesAboveTheBase() throws Exception {
        String uri = dir.resolve("t").toString();
        LanceTables.create(uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        try (RootAllocator allocator = new RootAllocator()) {
            List<RowOp> base = new ArrayList<>();
            for (long id = 1; id <= 20; id++) {
                String name = id == 7 || id == 9 ? null : id % 2 == 0 ? "a" : "b";
                base.add(RowOp.put(Memtables.row("id", id, "name", name)));
                model.put(id, name);
            }
            new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator)
                    .writeBase(base);
            try (BucketShardWriters writers = new BucketShardWriters(uri, allocator)) {
                write(writers, 2, "b"); // out of name = 'a': its base row passes and must stay hidden
                write(writers, 3, "a"); // into it
                write(writers, 4, null); // deleted
                write(writers, 21, "a");
                write(writers, 7, "c"); // no longer null
                writers.publish();
            }
        }
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "t", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", Path.of(uri), "buckets", "2"));

        assertThat(sql.explainSql("SELECT id FROM t WHERE name = 'a'"))
                .as("the filter reaches the source")
                .contains("default_database, t, filter=[=(name, ");
        check(sql, "name = 'a'", (id, name) -> "a".equals(name));
        check(sql, "NOT (name = 'a') AND id > 2", (id, name) -> name != null && !name.equals("a") && id > 2);
        check(
                sql,
                "id IN (1, 2, 3, 7) OR name IS NULL",
                (id, name) -> List.of(1L, 2L, 3L, 7L).contains(id) || name == null);
        check(sql, "name <> 'b' AND id <= 10", (id, name) -> name != null && !name.equals("b") && id <= 10);
    }

    private void write(BucketShardWriters writers, long id, String name) {
        writers.write(id, name == null ? "" : name, name == null);
        if (name == null) {
            model.remove(id);
        } else {
            model.put(id, name);
        }
    }

    private void check(StreamTableEnvironment sql, String where, BiPredicate<Long, String> keeps) throws Exception {
        List<String> expected = model.entrySet().stream()
                .filter(e -> keeps.test(e.getKey(), e.getValue()))
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList();
        List<String> emitted = SqlTables.collect(sql, "SELECT id, name FROM t WHERE " + where).stream()
                .map(r -> r.getField(0) + "=" + Objects.toString(r.getField(1)))
                .toList();
        assertThat(emitted).as(where).containsExactlyInAnyOrderElementsOf(expected);
    }
}
