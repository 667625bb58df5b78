package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every column type walsink maps round-trips through INSERT and SELECT, nulls included. */
class WalSinkSqlTypesTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final String[][] COLUMNS = {
        {"id", "BIGINT"},
        {"b", "BOOLEAN"},
        {"ti", "TINYINT"},
        {"si", "SMALLINT"},
        {"i", "INT"},
        {"f", "FLOAT"},
        {"d", "DOUBLE"},
        {"dec", "DECIMAL(20, 4)"},
        {"wide", "DECIMAL(38, 10)"},
        {"c", "CHAR(3)"},
        {"vc", "VARCHAR(10)"},
        {"s", "STRING"},
        {"bin", "BINARY(2)"},
        {"vb", "VARBINARY(5)"},
        {"bs", "BYTES"},
        {"dt", "DATE"},
        {"t0", "TIME(0)"},
        {"t3", "TIME(3)"},
        {"ts0", "TIMESTAMP(0)"},
        {"ts3", "TIMESTAMP(3)"},
        {"ts6", "TIMESTAMP(6)"},
        {"ts9", "TIMESTAMP(9)"},
        {"ltz3", "TIMESTAMP_LTZ(3)"},
        {"ltz6", "TIMESTAMP_LTZ(6)"},
        {"ints", "ARRAY<INT>"},
        {"strs", "ARRAY<STRING>"},
        {"dbls", "ARRAY<DOUBLE>"},
        {"nested", "ARRAY<ARRAY<BIGINT>>"},
        {"stamps", "ARRAY<TIMESTAMP(6)>"},
    };

    private static final String VALUES = "(1, TRUE, -7, 300, 70000, 1.5, 2.25, 12345.6789, '1234567890.0123456789',"
            + " 'ab', 'hello', 'wörld ☃', X'0102', X'0A0B0C', X'FF00', DATE '2024-02-29', TIME '12:34:56',"
            + " TIME '12:34:56.789', TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP '2024-01-02 03:04:05.678',"
            + " TIMESTAMP '2024-01-02 03:04:05.123456', TIMESTAMP '1969-12-31 23:59:59.123456789',"
            + " TO_TIMESTAMP_LTZ(1700000000123, 3), TO_TIMESTAMP_LTZ(1700000000123, 3),"
            + " ARRAY[1, CAST(NULL AS INT), 3], ARRAY['x', 'y'], ARRAY[-0.5, 1e300], ARRAY[ARRAY[1, 2], ARRAY[3]],"
            + " ARRAY[TIMESTAMP '2000-01-01 00:00:00.000001'])";

    @TempDir
    Path dir;

    @Test
    void everySupportedTypeRoundTripsThroughSql() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql("CREATE TEMPORARY VIEW src AS SELECT " + casts() + " FROM (VALUES " + VALUES + ") AS v("
                + names() + ") UNION ALL SELECT " + nullsBut("id", "2"));
        Path path = dir.resolve("types");
        sql.executeSql(SqlTables.walsinkTable("t", ddl() + ", PRIMARY KEY (id) NOT ENFORCED", path, "buckets", "2"));
        sql.executeSql("INSERT INTO t SELECT * FROM src").await();

        List<Row> expected = SqlTables.collect(sql, "SELECT * FROM src");
        assertThat(expected).hasSize(2);
        assertThat(SqlTables.collect(sql, "SELECT * FROM t")).containsExactlyInAnyOrderElementsOf(expected);
        // The WAL tail too: a second declaration of the same table reading in 'latest' mode.
        sql.executeSql(SqlTables.walsinkTable("t_latest", ddl(), path, "scan.mode", "latest"));
        assertThat(SqlTables.collect(sql, "SELECT * FROM t_latest")).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String ddl() {
        StringBuilder b = new StringBuilder();
        for (String[] c : COLUMNS) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append('`')
                    .append(c[0])
                    .append("` ")
                    .append(c[1]);
        }
        return b.toString();
    }

    private static String casts() {
        StringBuilder b = new StringBuilder();
        for (String[] c : COLUMNS) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append("CAST(`")
                    .append(c[0])
                    .append("` AS ")
                    .append(c[1])
                    .append(") AS `")
                    .append(c[0])
                    .append('`');
        }
        return b.toString();
    }

    /** A row of typed NULLs, but {@code column} = {@code value}. */
    private static String nullsBut(String column, String value) {
        StringBuilder b = new StringBuilder();
        for (String[] c : COLUMNS) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append(c[0].equals(column) ? "CAST(" + value + " AS " + c[1] + ")" : "CAST(NULL AS " + c[1] + ")");
        }
        return b.toString();
    }

    private static String names() {
        StringBuilder b = new StringBuilder();
        for (String[] c : COLUMNS) {
            b.append(b.length() == 0 ? "" : ", ").append('`').append(c[0]).append('`');
        }
        return b.toString();
    }
}
