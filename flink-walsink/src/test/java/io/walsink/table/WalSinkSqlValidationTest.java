package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Mistakes in a walsink table declaration fail while the statement is planned, naming the option or column. */
class WalSinkSqlValidationTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS = "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED";

    @TempDir
    Path dir;

    private StreamTableEnvironment sql;

    @BeforeEach
    void setUp() {
        sql = SqlTables.env();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "buckets|0|'buckets': must be in [1, 1024], was 0",
                "buckets|1025|'buckets': must be in [1, 1024], was 1025",
                "buckets|many|buckets",
                "sink.flush-interval|0 ms|'sink.flush-interval': must be positive",
                "sink.memtable.max-rows|0|'sink.memtable.max-rows': must be positive",
                "sink.wal.max-buffer-size|0 b|'sink.wal.max-buffer-size': must be positive",
                "sink.wal.max-appends-per-second|0|'sink.wal.max-appends-per-second': must be positive",
                "sink.max-unflushed-bytes|1 mb|sink.max-unflushed-bytes (1048576) must be at least sink.memtable.max-size",
                "sink.parallelism|0|'sink.parallelism': must be positive",
                "sink.io-threads|-1|'sink.io-threads': must be positive",
                "s3.checksum-mode|sometimes|'s3.checksum-mode': must be when_supported or when_required",
                "s3.endpoint|not a url|'s3.endpoint'",
                "s3.access-key|AKIA|'s3.access-key' and 's3.secret-key' go together",
                "wal.schema-profile|lance-9|'wal.schema-profile': unknown WAL schema profile 'lance-9'",
                "scan.mode|newest|'scan.mode': must be committed or latest",
                "lookup.cache|SOMETIMES|'lookup.cache': must be NONE, PARTIAL or FULL, was 'SOMETIMES'",
                "lookup.cache|FULL|'lookup.full-cache.periodic-reload.interval': a FULL cache reloaded PERIODIC needs a"
                        + " positive interval, was null",
                "lookup.cache|PARTIAL|'lookup.cache': PARTIAL needs 'lookup.partial-cache.max-rows'",
                "lookup.partial-cache.max-rows|0|'lookup.partial-cache.max-rows': must be positive",
                "lookup.max-retries|-1|'lookup.max-retries': must not be negative",
                "vector-search.ef|-1|'vector-search.ef' must not be negative, got -1",
                "vector-search.refresh-interval|-1 s|'vector-search.refresh-interval'",
                "sink.gc.consumer-expiration|0 ms|'sink.gc.consumer-expiration': must be positive",
                "sink.compaction.keep-merged-for|-1 s|'sink.compaction.keep-merged-for'",
                "no.such-option|1|no.such-option",
            })
    void anInvalidOptionFailsNamingIt(String option, String value, String message) {
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, dir.resolve("t"), "buckets", "4", option, value)
                .replace("'buckets' = '4', 'buckets'", "'buckets'"));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO t VALUES (1, 'a')"))
                .hasStackTraceContaining(message);
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM t")).hasStackTraceContaining(message);
    }

    /** The reload settings of a FULL lookup cache, given as {@code key=value} pairs separated by ';'. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "lookup.full-cache.reload-strategy=SOMETIMES|'lookup.full-cache.reload-strategy': must be PERIODIC or"
                        + " TIMED, was 'SOMETIMES'",
                "lookup.full-cache.periodic-reload.interval=0 ms|'lookup.full-cache.periodic-reload.interval': a FULL"
                        + " cache reloaded PERIODIC needs a positive interval, was PT0S",
                "lookup.full-cache.periodic-reload.interval=1 min;lookup.full-cache.periodic-reload.schedule-mode=NOW"
                        + "|'lookup.full-cache.periodic-reload.schedule-mode': must be FIXED_DELAY or FIXED_RATE, was"
                        + " 'NOW'",
                "lookup.full-cache.reload-strategy=TIMED|'lookup.full-cache.timed-reload.iso-time': a FULL cache"
                        + " reloaded TIMED needs a time of day",
                "lookup.full-cache.reload-strategy=TIMED;lookup.full-cache.timed-reload.iso-time=25:00"
                        + "|'lookup.full-cache.timed-reload.iso-time': must be an ISO-8601 time such as 10:15 or"
                        + " 10:15:30+01:00, was '25:00'",
                "lookup.full-cache.reload-strategy=TIMED;lookup.full-cache.timed-reload.iso-time=03:00;"
                        + "lookup.full-cache.timed-reload.interval-in-days=0"
                        + "|'lookup.full-cache.timed-reload.interval-in-days': must be positive, was 0",
            })
    void anInvalidFullCacheOptionFailsNamingIt(String pairs, String message) {
        List<String> options = new ArrayList<>(List.of("lookup.cache", "FULL"));
        for (String pair : pairs.split(";")) {
            options.addAll(List.of(pair.split("=", 2)));
        }
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, dir.resolve("t"), options.toArray(String[]::new)));
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM t")).hasStackTraceContaining(message);
    }

    /** Options of the continuous read: only a SELECT in a streaming job parses them. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "scan.startup-mode|earliest|scan.mode|committed|'scan.startup-mode': must be initial, latest or snapshot, was 'earliest'",
                "scan.discovery-interval|0 ms|scan.mode|committed|'scan.discovery-interval': must be positive",
                "scan.startup-mode|initial|scan.mode|latest|'scan.mode': latest reads the WAL tail, which a continuous read does not follow",
                "scan.startup-mode|latest|scan.mode|latest|'scan.mode': latest reads the WAL tail",
                "scan.consumer-id|../etl|scan.mode|committed|'scan.consumer-id': a consumer id must be 1 to 100 letters, digits",
                "scan.consumer-id|etl/1|scan.mode|committed|it names a file under _walsink/consumers/), was 'etl/1'",
            })
    void anInvalidContinuousReadOptionFailsTheSelectNamingIt(
            String option, String value, String option2, String value2, String message) {
        sql.executeSql(
                SqlTables.walsinkTable("t", COLUMNS, dir.resolve("t"), "buckets", "4", option, value, option2, value2));
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM t")).hasStackTraceContaining(message);
    }

    @Test
    void aContinuousReadOfAKeyedTableDeclaredWithoutItsKeyFailsSayingSo() throws Exception {
        sql.executeSql(SqlTables.walsinkTable("k", COLUMNS, dir.resolve("k"), "buckets", "2"));
        sql.executeSql("INSERT INTO k VALUES (1, 'a')").await();
        sql.executeSql(SqlTables.walsinkTable(
                "unkeyed", "id BIGINT NOT NULL, name STRING", dir.resolve("k"), "scan.startup-mode", "initial"));
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM unkeyed"))
                .hasStackTraceContaining("declare PRIMARY KEY [id] NOT ENFORCED");
    }

    @Test
    void aMissingPathFailsNamingIt() {
        sql.executeSql("CREATE TABLE t (" + COLUMNS + ") WITH ('connector' = 'walsink')");
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO t VALUES (1, 'a')"))
                .hasStackTraceContaining("Missing required options are:")
                .hasStackTraceContaining("path");
    }

    @Test
    void creatingATableNeedsBuckets() {
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, dir.resolve("t")));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO t VALUES (1, 'a')"))
                .hasStackTraceContaining("There is no walsink table at")
                .hasStackTraceContaining("set option 'buckets'");
    }

    @Test
    void aDeclarationThatDoesNotMatchTheTableFailsNamingTheColumn() throws Exception {
        Path path = dir.resolve("t");
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, path, "buckets", "2"));
        sql.executeSql("INSERT INTO t VALUES (1, 'a')").await();

        sql.executeSql(
                SqlTables.walsinkTable("renamed", "id BIGINT, title STRING, PRIMARY KEY (id) NOT ENFORCED", path));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO renamed VALUES (1, 'a')"))
                .hasStackTraceContaining("column 'name'");
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM renamed")).hasStackTraceContaining("Column 'title'");

        sql.executeSql(SqlTables.walsinkTable("retyped", "id BIGINT, name INT, PRIMARY KEY (id) NOT ENFORCED", path));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO retyped VALUES (1, 2)"))
                .hasStackTraceContaining("column 'name'");
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM retyped"))
                .hasStackTraceContaining("Column 'name' is declared INT");

        sql.executeSql(SqlTables.walsinkTable(
                "rekeyed", "id BIGINT NOT NULL, name STRING NOT NULL," + " PRIMARY KEY (name) NOT ENFORCED", path));
        assertThatThrownBy(() -> sql.executeSql("INSERT INTO rekeyed VALUES (1, 'a')"))
                .hasStackTraceContaining("primary key [name] does not match the primary key [id]");
        assertThatThrownBy(() -> sql.executeSql("SELECT * FROM rekeyed"))
                .hasStackTraceContaining("PRIMARY KEY [name] does not match the primary key [id]");
    }
}
