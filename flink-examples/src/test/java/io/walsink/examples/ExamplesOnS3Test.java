package io.walsink.examples;

import static io.walsink.examples.ExamplesTest.assertVerifies;
import static io.walsink.examples.ExamplesTest.finished;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.walsink.testing.S3MockServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The S3 variant of each example, against s3mock, as the README tells users to run it: the demo's
 * {@code --s3-*} flags, credentials from the AWS default chain (the build sets dummy
 * {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY} for these tests). The {@code walsink}
 * command then checks and maintains the same {@code s3://} table with the same flags.
 */
class ExamplesOnS3Test {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    private static String[] s3Flags() {
        return new String[] {"--s3-endpoint", S3.endpoint().toString(), "--s3-region", "us-east-1", "--s3-path-style"};
    }

    private static String newTable(String name) {
        return "s3://" + S3MockServer.BUCKET + "/examples-" + UUID.randomUUID() + "/" + name;
    }

    private static DemoArgs args(String demo, String path, long rows, int keys) {
        List<String> argv = new ArrayList<>(List.of(
                "--path", path, "--rows", Long.toString(rows), "--keys", Integer.toString(keys), "--buckets", "2"));
        argv.addAll(List.of(s3Flags()));
        return DemoArgs.parse(demo, argv.toArray(String[]::new), 1, 1);
    }

    private static String[] command(String command, String path, String... more) {
        List<String> argv = new ArrayList<>(List.of(command, path));
        argv.addAll(List.of(more));
        argv.addAll(List.of(s3Flags()));
        return argv.toArray(String[]::new);
    }

    @Test
    void theUpsertDemoWritesToS3AndTheToolReadsItBack() throws Exception {
        String path = newTable("upsert");
        Console.Printed<Boolean> run = Console.capture(() -> UpsertDemo.run(args("UpsertDemo", path, 3_000, 300)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(3_000, "changes")).contains("table matches    YES");
        assertVerifies(path, s3Flags());

        Console.Run inspect = Console.walsink(command("inspect", path, "--json"));
        assertThat(inspect.code()).as(inspect.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(inspect.out());
        assertThat(report.get("shards")).hasSize(2);

        Console.Run scan = Console.walsink(command("scan", path, "--format", "csv", "--columns", "id,value"));
        assertThat(scan.code()).as(scan.err()).isZero();
        List<String> expected = new ArrayList<>(List.of("id,value"));
        new ChangeStream(300).model(3_000).forEach((id, value) -> expected.add(id + "," + value));
        assertThat(scan.out().lines().toList()).containsExactlyElementsOf(expected);
    }

    @Test
    void theSqlDemoWritesToS3ThroughTheConnectorsS3Options() throws Exception {
        String path = newTable("sql");
        Console.Printed<Boolean> run = Console.capture(() -> SqlDemo.run(args("SqlDemo", path, 2_000, 150)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(2_000, "upserts")).contains("table matches    YES");
        assertVerifies(path, s3Flags());
    }

    @Test
    void theChangelogDemoWritesToS3AndTheToolCompactsIt() throws Exception {
        String path = newTable("cdc");
        Console.Printed<Boolean> run =
                Console.capture(() -> ChangelogDemo.run(args("ChangelogDemo", path, 2_000, 200)));
        assertThat(run.result()).isTrue();
        assertThat(run.out()).contains(finished(2_000, "changes")).contains("table matches    YES");
        Console.Run before = Console.walsink(command("scan", path, "--format", "csv"));

        Console.Run dryRun = Console.walsink(command("gc", path, "--retention", "0s", "--dry-run"));
        assertThat(dryRun.code()).as(dryRun.err()).isZero();
        assertThat(dryRun.out()).startsWith("Dry run, would remove from " + path);
        Console.Run compact = Console.walsink(command("compact", path));
        assertThat(compact.code()).as(compact.err()).isZero();
        assertThat(compact.out()).contains("Compacted " + path);
        // The demo's sink compacts too (on by default), so the tool may find little or nothing left;
        // what must hold is that after it nothing published is left unmerged.
        Console.Run again = Console.walsink(command("compact", path));
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.out()).contains(": 0 generations merged");
        assertVerifies(path, s3Flags());
        Console.Run after = Console.walsink(command("scan", path, "--format", "csv"));
        assertThat(after.out()).as("compaction keeps the rows").isEqualTo(before.out());
    }
}
