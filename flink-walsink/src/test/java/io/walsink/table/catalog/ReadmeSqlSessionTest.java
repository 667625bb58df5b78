package io.walsink.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.table.SqlTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's SQL-client session, statement by statement as written (its folder moved into a
 * temporary one, its SQL-client display setting left out), on a MiniCluster: catalog, table,
 * insert, select, compaction, tag, ALTER TABLE, time travel.
 */
class ReadmeSqlSessionTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final Path README = Path.of("..", "README.md");

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void theReadmeSessionRunsAndEachSelectReturnsWhatItSays() throws Exception {
        StreamTableEnvironment sql = SqlTables.env();
        List<List<Row>> selects = new ArrayList<>();
        for (String statement : statements()) {
            String s = statement.replace(
                    "file:///tmp/lake", dir.resolve("lake").toUri().toString());
            if (s.startsWith("SET ")) {
                String[] kv = s.substring(4).split("=", 2);
                String key = unquote(kv[0]);
                if (!key.startsWith("sql-client.")) {
                    sql.getConfig().set(key, unquote(kv[1]));
                }
            } else if (s.startsWith("SELECT") || s.startsWith("CALL")) {
                List<Row> rows = SqlTables.collect(sql, s);
                System.out.println(s + "\n  -> " + rows);
                if (s.startsWith("SELECT")) {
                    selects.add(rows);
                }
            } else {
                sql.executeSql(s).await();
            }
        }
        assertThat(dir.resolve("lake").resolve("events.lance")).isDirectory();
        assertThat(selects).hasSize(3);
        assertThat(selects.get(0)).hasSize(5).allSatisfy(r -> assertThat(r.getArity())
                .isEqualTo(3));
        assertThat(selects.get(1))
                .hasSize(5)
                .contains(Row.of(1L, "one", 1.5, "changed"))
                .filteredOn(r -> !r.getField(0).equals(1L))
                .allSatisfy(r -> assertThat(r.getField(3)).isNull());
        assertThat(selects.get(2))
                .as("the tagged version, from before the ALTER and the update")
                .hasSize(5)
                .allSatisfy(r -> assertThat(r.getArity()).isEqualTo(3))
                .noneMatch(r -> "one".equals(r.getField(1)));
    }

    /** The statements of the README's SQL block, comments dropped. */
    private static List<String> statements() throws Exception {
        String readme = Files.readString(README);
        int start = readme.indexOf("```sql\n");
        String block = readme.substring(start + "```sql\n".length(), readme.indexOf("```", start + 6));
        StringBuilder text = new StringBuilder();
        for (String line : block.split("\n")) {
            int comment = line.indexOf("--");
            text.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String s : text.toString().split(";")) {
            if (!s.isBlank()) {
                statements.add(s.strip().replaceAll("\\s+", " "));
            }
        }
        return statements;
    }

    private static String unquote(String s) {
        return s.strip().replaceAll("^'|'$", "");
    }
}
