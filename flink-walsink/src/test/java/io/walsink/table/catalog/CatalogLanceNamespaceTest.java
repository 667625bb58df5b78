package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.table.SqlTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.DirectoryNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.ListTablesRequest;

/**
 * lance-core's own directory namespace (what Lance's connectors and LanceDB resolve a table name
 * through) as an oracle of the catalog's layout: it lists the tables the catalog created in the
 * warehouse root and finds each where the catalog put it; what lance-core adds to the warehouse for
 * a namespace of its own is no database or table of the catalog.
 */
class CatalogLanceNamespaceTest {
    @TempDir
    Path dir;

    @Test
    void lanceCoresDirectoryNamespaceListsAndLocatesTheCatalogsTables() throws Exception {
        Path warehouse = dir.resolve("lake");
        StreamTableEnvironment sql = SqlTables.catalog(warehouse);
        sql.executeSql("CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('buckets' = '2')");
        sql.executeSql("CREATE TABLE logs (line STRING) WITH ('buckets' = '1')");

        try (BufferAllocator allocator = new RootAllocator();
                DirectoryNamespace namespace = new DirectoryNamespace()) {
            namespace.initialize(Map.of("root", warehouse.toString()), allocator);
            List<String> tables = namespace.listTables(new ListTablesRequest().id(List.of())).getTables().stream()
                    .sorted()
                    .toList();
            assertThat(tables)
                    .as("the tables lance-core's directory namespace lists")
                    .containsExactly("events", "logs");
            String location = namespace
                    .describeTable(new DescribeTableRequest().id(List.of("events")))
                    .getLocation();
            assertThat(Path.of(location.replaceFirst("^file://", "")).normalize())
                    .as("where the namespace finds 'events'")
                    .isEqualTo(warehouse.resolve("events.lance"));

            // A child namespace lance-core creates lives in its __manifest table, not in a sub-folder:
            // the catalog's databases are sub-folders, so it is not one of them, nor a table.
            namespace.createNamespace(new CreateNamespaceRequest().id(List.of("team")));
        }
        assertThat(SqlTables.collect(sql, "SHOW DATABASES"))
                .as("databases after lance-core added a namespace to the warehouse")
                .containsExactly(Row.of("default"));
        assertThat(SqlTables.collect(sql, "SHOW TABLES"))
                .as("tables after lance-core added a namespace to the warehouse")
                .containsExactlyInAnyOrder(Row.of("events"), Row.of("logs"));
    }
}
