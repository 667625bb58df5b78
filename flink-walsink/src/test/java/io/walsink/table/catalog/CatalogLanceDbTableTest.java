package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.table.SqlTables;
import io.walsink.testing.LanceDb;
import java.nio.file.Path;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A table LanceDB created in the warehouse (a plain Lance table, no MemWAL) is listed and read. */
class CatalogLanceDbTableTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void aTableLanceDbCreatedIsListedAndRead() throws Exception {
        Path warehouse = dir.resolve("lake");
        LanceDb.create(warehouse, "docs", "[{\"id\": 1, \"title\": \"a\"}, {\"id\": 2, \"title\": \"b\"}]");

        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).containsExactly(Row.of("docs"));
        // LanceDB stores JavaScript numbers as DOUBLE.
        assertThat(SqlTables.collect(
                        sql, "SELECT id, title FROM docs /*+ OPTIONS('scan.startup-mode' = 'snapshot') */"))
                .containsExactlyInAnyOrder(Row.of(1.0, "a"), Row.of(2.0, "b"));
    }
}
