package io.walsink.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.cli.WalsinkCli;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each example job runs at a small size on the embedded cluster: it prints its progress, its
 * read-back matches, and {@code walsink verify} finds the table it wrote healthy.
 */
class ExamplesTest {
    @TempDir
    Path dir;

    /** The last progress line of a run of {@code total} (the format the demos print). */
    static String finished(long total, String what) {
        return String.format("generated %,d of %,d %s (100%%)", total, total, what);
    }

    static void assertVerifies(String path, String... s3) {
        String[] args = new String[s3.length + 2];
        args[0] = "verify";
        args[1] = path;
        System.arraycopy(s3, 0, args, 2, s3.length);
        Console.Run verify = Console.walsink(args);
        assertThat(verify.out()).as(verify.err()).startsWith("OK: ");
        assertThat(verify.code()).isEqualTo(WalsinkCli.OK);
    }

    @Test
    void theUpsertDemoReadsBackItsModel() throws Exception {
        String path = dir.resolve("upsert").toString();
        Console.Printed<Boolean> run = Console.capture(() -> UpsertDemo.run(new DemoArgs(path, 5_000, 500, 2)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(5_000, "changes")).contains("table matches    YES");
        assertVerifies(path);
    }

    @Test
    void theSqlDemoSelectsWhatItInserted() throws Exception {
        String path = dir.resolve("sql").toString();
        Console.Printed<Boolean> run = Console.capture(() -> SqlDemo.run(new DemoArgs(path, 3_000, 200, 2)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(3_000, "upserts")).contains("table matches    YES");
        assertVerifies(path);
    }

    @Test
    void theChangelogDemoLeavesNoDeletedKey() throws Exception {
        String path = dir.resolve("cdc").toString();
        Console.Printed<Boolean> run = Console.capture(() -> ChangelogDemo.run(new DemoArgs(path, 3_000, 300, 2)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(3_000, "changes")).contains("table matches    YES");
        assertVerifies(path);
    }

    @Test
    void theChangelogDeletesEveryThirdKeyAtItsLastChange() {
        long rows = 3_000;
        int keys = 300;
        long deletes = 0;
        for (long i = 0; i < rows; i++) {
            if (ChangelogDemo.change(i, keys, rows).getKind() == RowKind.DELETE) {
                deletes++;
            }
        }
        assertThat(deletes).isEqualTo(100);
    }

    @Test
    void helpIsAnswerAndBadOptionsAreRefused() {
        for (String demo : new String[] {"UpsertDemo", "SqlDemo", "ChangelogDemo"}) {
            assertThatThrownBy(() -> DemoArgs.parse(demo, new String[] {"--help"}, 1, 1))
                    .isInstanceOf(DemoArgs.HelpRequested.class)
                    .hasMessageContaining("usage: " + demo)
                    .hasMessageContaining("--s3-endpoint URL");
        }
        assertThatThrownBy(() -> DemoArgs.parse("SqlDemo", new String[] {"--rows", "0"}, 1, 1))
                .hasMessageContaining("--rows must be positive");
    }

    @Test
    void parallelismMaintenanceIntervalAndSinkOptionsAreFlagsWithTheOldDefaults() {
        DemoArgs args = DemoArgs.parse(
                "UpsertDemo",
                new String[] {
                    "--parallelism",
                    "3",
                    "--maintenance-interval",
                    "1",
                    "--sink-option",
                    "sink.memtable.max-age=1 h",
                    "--sink-option",
                    "sink.compaction.enabled=false"
                },
                1,
                1);
        assertThat(args.parallelism()).isEqualTo(3);
        assertThat(args.maintenanceSeconds()).isEqualTo(1);
        assertThat(args.sinkOptions())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("sink.memtable.max-age", "1 h", "sink.compaction.enabled", "false"));
        assertThatThrownBy(() -> DemoArgs.parse("UpsertDemo", new String[] {"--sink-option", "sink.nope=1"}, 1, 1))
                .hasMessageContaining("--sink-option takes KEY=VALUE")
                .hasMessageContaining("sink.nope=1");
        assertThatThrownBy(() ->
                        DemoArgs.parse("UpsertDemo", new String[] {"--sink-option", "sink.memtable.max-age"}, 1, 1))
                .hasMessageContaining("--sink-option takes KEY=VALUE");
        DemoArgs defaults = DemoArgs.parse("UpsertDemo", new String[0], 1, 1);
        assertThat(defaults.parallelism())
                .as("the demos' writers before the flag")
                .isEqualTo(2);
        assertThat(defaults.maintenanceSeconds())
                .as("0: the sink's own default")
                .isZero();
        assertThat(defaults.sinkOptions()).isEmpty();
        assertThatThrownBy(() -> DemoArgs.parse("UpsertDemo", new String[] {"--parallelism", "0"}, 1, 1))
                .hasMessageContaining("--parallelism must be positive");
    }

    @Test
    void theSqlDemoPassesItsS3FlagsAsConnectorOptions() {
        DemoArgs args = DemoArgs.parse(
                "SqlDemo",
                new String[] {"--s3-endpoint", "http://localhost:9090", "--s3-region", "eu-west-1", "--s3-path-style"},
                1,
                1);
        assertThat(SqlDemo.s3Options(args.s3()))
                .isEqualTo(", 's3.endpoint' = 'http://localhost:9090', 's3.region' = 'eu-west-1',"
                        + " 's3.path-style-access' = 'true'");
        assertThat(SqlDemo.s3Options(
                        DemoArgs.parse("SqlDemo", new String[0], 1, 1).s3()))
                .isEmpty();
    }
}
