package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.MiniClusters;
import io.walsink.table.SqlTables;
import java.nio.file.Path;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** CREATE TABLE ... LIKE: the schema and key are copied, the location is the catalog's. */
class CatalogCreateTableLikeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir
    Path dir;

    @Test
    void createTableLikeCopiesASchemaAndKeyAndTheCatalogPlacesTheTable() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2', 'scan.startup-mode' = 'snapshot')");
        // LIKE would copy the source's location: the catalog places each table itself.
        assertThatThrownBy(() -> sql.executeSql("CREATE TABLE copy WITH ('buckets' = '1') LIKE events"))
                .hasStackTraceContaining("remove the 'path' option");
        sql.executeSql("CREATE TABLE copy WITH ('buckets' = '1', 'scan.startup-mode' = 'snapshot')"
                + " LIKE events (EXCLUDING OPTIONS)");
        assertThat(sql.from("copy").getResolvedSchema().getColumnNames()).containsExactly("id", "name");
        assertThat(sql.from("copy")
                        .getResolvedSchema()
                        .getPrimaryKey()
                        .orElseThrow()
                        .getColumns())
                .containsExactly("id");
        sql.executeSql("INSERT INTO copy VALUES (1, 'x'), (1, 'y')").await();
        assertThat(SqlTables.collect(sql, "SELECT id, name FROM copy")).containsExactly(Row.of(1L, "y"));
        assertThat(SqlTables.collect(sql, "SHOW TABLES")).containsExactlyInAnyOrder(Row.of("events"), Row.of("copy"));
    }
}
