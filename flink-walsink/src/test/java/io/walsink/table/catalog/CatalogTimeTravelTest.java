package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.TableReader;
import io.walsink.storage.S3Options;
import io.walsink.table.SqlTables;
import io.walsink.testing.BaseVersions;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Time travel: a base table version read three ways (SQL, {@code TableReader}, LanceDB's {@code
 * checkout}) gives the same rows; a tagged version survives the cleanup that removes the others,
 * and a removed version fails naming the retention.
 */
class CatalogTimeTravelTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void aVersionReadsTheSameThreeWaysAndATaggedOneOutlivesTheCleanup() throws Exception {
        Path warehouse = dir.resolve("lake");
        Path table = warehouse.resolve("events.lance");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2', 'sink.compaction.enabled' = 'false', 'scan.startup-mode' = 'snapshot')");

        sql.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        String tagged = SqlTables.collect(sql, "CALL lake.sys.create_tag('events', 'first')")
                .get(0)
                .getField(0)
                .toString();
        long first = Long.parseLong(tagged.split(" ")[2]);

        sql.executeSql("INSERT INTO events VALUES (2, 'b2'), (3, 'c')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        long second = BaseVersions.latest(table.toString());
        assertThat(second).as("compaction made a newer version").isGreaterThan(first);

        List<Row> atFirst = List.of(Row.of(1L, "a"), Row.of(2L, "b"));
        List<Row> atSecond = List.of(Row.of(1L, "a"), Row.of(2L, "b2"), Row.of(3L, "c"));
        assertThat(select(sql, "'scan.version' = '" + first + "'")).containsExactlyInAnyOrderElementsOf(atFirst);
        assertThat(select(sql, "'scan.tag' = 'first'")).containsExactlyInAnyOrderElementsOf(atFirst);
        assertThat(select(sql, "'scan.version' = '" + second + "'")).containsExactlyInAnyOrderElementsOf(atSecond);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(rows(reader.readVersion(first).rows())).containsExactlyInAnyOrderElementsOf(atFirst);
            assertThat(rows(reader.readTag("first").rows())).containsExactlyInAnyOrderElementsOf(atFirst);
            assertThat(rows(reader.readVersion(second).rows())).containsExactlyInAnyOrderElementsOf(atSecond);
        }
        Map<String, LanceDb.Result> lancedb = LanceDb.readByName(
                warehouse,
                "events",
                List.of(
                        LanceDb.Query.checkout("first", List.of("id", "name"), first),
                        LanceDb.Query.checkout("tag", List.of("id", "name"), "first"),
                        LanceDb.Query.checkout("second", List.of("id", "name"), second)));
        assertThat(lancedb.get("first").rows()).containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b"));
        assertThat(lancedb.get("tag").rows()).isEqualTo(lancedb.get("first").rows());
        assertThat(lancedb.get("second").rows())
                .containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b2"), List.of("3", "c"));

        // A cleanup keeping nothing old removes every untagged older version, the tagged one stays.
        long untagged = first - 1;
        CompactionResult cleaned = Compactor.compact(
                table.toString(),
                S3Options.defaults(),
                CompactorOptions.builder().cleanupRetention(Duration.ZERO).build());
        assertThat(cleaned.cleanedUpVersions()).as("the cleanup ran").hasValueSatisfying(n -> assertThat(n)
                .isPositive());
        assertThat(select(sql, "'scan.tag' = 'first'")).containsExactlyInAnyOrderElementsOf(atFirst);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(rows(reader.readTag("first").rows())).containsExactlyInAnyOrderElementsOf(atFirst);
            assertThatThrownBy(() -> reader.readVersion(untagged))
                    .hasMessageContaining("has no base table version " + untagged)
                    .hasMessageContaining("sink.gc.retention");
            assertThatThrownBy(() -> reader.readTag("none")).hasMessageContaining("has no tag 'none'");
        }
        assertThatThrownBy(() -> select(sql, "'scan.version' = '" + untagged + "'"))
                .hasStackTraceContaining("has no base table version " + untagged)
                .hasStackTraceContaining("sink.gc.retention");
        assertThatThrownBy(() -> select(sql, "'scan.version' = '1', 'scan.tag' = 'first'"))
                .hasStackTraceContaining("not several");
        assertThatThrownBy(() -> select(sql, "'scan.tag' = 'first', 'scan.startup-mode' = 'latest'"))
                .hasStackTraceContaining("a bounded SELECT");
    }

    @Test
    void aTimestampReadsTheVersionThatWasLatestThenUntilTheCleanupRemovesWhatTellsWhich() throws Exception {
        Path warehouse = dir.resolve("lake");
        Path table = warehouse.resolve("events.lance");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        // no 'scan.startup-mode': a time-travel read is bounded by itself
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2', 'sink.compaction.enabled' = 'false')");
        Instant created = BaseVersions.committed(table.toString(), 1);

        sql.executeSql("INSERT INTO events VALUES (1, 'a'), (2, 'b')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        long first = BaseVersions.latest(table.toString());
        sql.executeSql("INSERT INTO events VALUES (2, 'b2'), (3, 'c')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        long second = BaseVersions.latest(table.toString());
        // The first millisecond boundary at or after each version's commit: still before the next one's.
        Instant atFirst = BaseVersions.readableAt(table.toString(), first);
        Instant atSecond = BaseVersions.readableAt(table.toString(), second);
        assertThat(atFirst)
                .as("the next version came later")
                .isBefore(BaseVersions.committed(table.toString(), first + 1));

        List<Row> rowsFirst = List.of(Row.of(1L, "a"), Row.of(2L, "b"));
        List<Row> rowsSecond = List.of(Row.of(1L, "a"), Row.of(2L, "b2"), Row.of(3L, "c"));
        assertThat(asOf(sql, atFirst)).containsExactlyInAnyOrderElementsOf(rowsFirst);
        assertThat(asOf(sql, atSecond)).containsExactlyInAnyOrderElementsOf(rowsSecond);
        assertThat(select(sql, "'scan.timestamp' = '" + atFirst.toEpochMilli() + "'"))
                .containsExactlyInAnyOrderElementsOf(rowsFirst);
        assertThat(select(sql, "'scan.timestamp' = '" + atSecond.atOffset(ZoneOffset.ofHours(2)) + "'"))
                .containsExactlyInAnyOrderElementsOf(rowsSecond);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(rows(reader.readAt(atFirst).rows())).containsExactlyInAnyOrderElementsOf(rowsFirst);
            assertThat(rows(reader.readAt(atSecond).rows())).containsExactlyInAnyOrderElementsOf(rowsSecond);
            assertThatThrownBy(() -> reader.readAt(created.minusMillis(1)))
                    .hasMessageContaining("has no base table version committed at or before")
                    .hasMessageContaining("sink.gc.retention");
        }
        Map<String, LanceDb.Result> lancedb = LanceDb.readByName(
                warehouse,
                "events",
                List.of(
                        LanceDb.Query.checkout("first", List.of("id", "name"), first),
                        LanceDb.Query.checkout("second", List.of("id", "name"), second)));
        assertThat(lancedb.get("first").rows()).containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b"));
        assertThat(lancedb.get("second").rows())
                .containsExactlyInAnyOrder(List.of("1", "a"), List.of("2", "b2"), List.of("3", "c"));
        assertThatThrownBy(() -> select(sql, "'scan.timestamp' = 'yesterday'"))
                .hasStackTraceContaining("'scan.timestamp'")
                .hasStackTraceContaining("neither epoch milliseconds nor an ISO-8601");
        assertThatThrownBy(() -> select(sql, "'scan.timestamp' = '1', 'scan.version' = '1'"))
                .hasStackTraceContaining("not several");

        // The cleanup removes every untagged version but the latest: the tagged one is still read by its
        // tag, but not by a time, since the versions after it that could have been current are gone.
        SqlTables.collect(sql, "CALL lake.sys.create_tag('events', 'first', " + first + ")");
        sql.executeSql("INSERT INTO events VALUES (4, 'd')").await();
        SqlTables.collect(sql, "CALL lake.sys.compact('events')");
        assertThat(BaseVersions.latest(table.toString())).as("a third version").isGreaterThan(second);
        Compactor.compact(
                table.toString(),
                S3Options.defaults(),
                CompactorOptions.builder().cleanupRetention(Duration.ZERO).build());
        assertThat(select(sql, "'scan.tag' = 'first'")).containsExactlyInAnyOrderElementsOf(rowsFirst);
        assertThatThrownBy(() -> asOf(sql, atFirst))
                .hasStackTraceContaining("cannot tell which base table version was current at " + atFirst)
                .hasStackTraceContaining("sink.gc.retention");
        Instant atCreation = created.truncatedTo(ChronoUnit.MILLIS);
        assertThatThrownBy(() -> asOf(sql, atCreation))
                .hasStackTraceContaining("has no base table version committed at or before " + atCreation)
                .hasStackTraceContaining("sink.gc.retention");
        try (TableReader reader = TableReader.open(table.toString())) {
            List<Row> rowsThird = new ArrayList<>(rowsSecond);
            rowsThird.add(Row.of(4L, "d"));
            assertThat(rows(reader.readAt(Instant.now()).rows())).containsExactlyInAnyOrderElementsOf(rowsThird);
            assertThatThrownBy(() -> reader.readAt(atSecond)).hasMessageContaining("cannot tell");
        }
    }

    private static List<Row> asOf(StreamTableEnvironment sql, Instant at) throws Exception {
        String literal = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").format(at.atOffset(ZoneOffset.UTC));
        return SqlTables.collect(sql, "SELECT id, name FROM events FOR SYSTEM_TIME AS OF TIMESTAMP '" + literal + "'");
    }

    private static List<Row> select(StreamTableEnvironment sql, String hint) throws Exception {
        return SqlTables.collect(sql, "SELECT id, name FROM events /*+ OPTIONS(" + hint + ") */");
    }

    private static List<Row> rows(List<Map<String, Object>> rows) {
        return rows.stream().map(r -> Row.of(r.get("id"), r.get("name"))).toList();
    }
}
