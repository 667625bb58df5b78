package io.walsink.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each example job runs at a small size on the embedded cluster and its read-back matches. */
class ExamplesTest {
    @TempDir
    Path dir;

    @Test
    void theUpsertDemoReadsBackItsModel() throws Exception {
        assertThat(UpsertDemo.run(new DemoArgs(dir.resolve("upsert").toString(), 5_000, 500, 2)))
                .isTrue();
    }

    @Test
    void theSqlDemoSelectsWhatItInserted() throws Exception {
        assertThat(SqlDemo.run(new DemoArgs(dir.resolve("sql").toString(), 3_000, 200, 2)))
                .isTrue();
    }

    @Test
    void theChangelogDemoLeavesNoDeletedKey() throws Exception {
        assertThat(ChangelogDemo.run(new DemoArgs(dir.resolve("cdc").toString(), 3_000, 300, 2)))
                .isTrue();
    }

    @Test
    void theChangelogDeletesEveryThirdKeyAtItsLastChange() {
        long rows = 3_000;
        int keys = 300;
        long deletes = 0;
        for (long i = 0; i < rows; i++) {
            if (ChangelogDemo.change(i, keys, rows).getKind() == org.apache.flink.types.RowKind.DELETE) {
                deletes++;
            }
        }
        assertThat(deletes).isEqualTo(100);
    }

    @Test
    void helpIsAnswerAndBadOptionsAreRefused() {
        assertThatThrownBy(() -> DemoArgs.parse("SqlDemo", new String[] {"--help"}, 1, 1))
                .isInstanceOf(DemoArgs.HelpRequested.class)
                .hasMessageContaining("usage: SqlDemo");
        assertThatThrownBy(() -> DemoArgs.parse("SqlDemo", new String[] {"--rows", "0"}, 1, 1))
                .hasMessageContaining("--rows must be positive");
    }
}
