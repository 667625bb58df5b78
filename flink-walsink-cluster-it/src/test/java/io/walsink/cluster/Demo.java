package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The examples' UpsertDemo submitted as a user submits it: {@code flink run [OPTIONS] -c
 * io.walsink.examples.UpsertDemo walsink-job.jar --path ... --rows ... --keys ... --buckets ...}.
 */
final class Demo {
    private Demo() {}

    /**
     * Starts the client; {@code runOptions} go to {@code flink run} ({@code -d}, {@code -s
     * SAVEPOINT}), {@code demoOptions} to the demo ({@code --rate}, {@code --parallelism}, ...).
     */
    static Process submit(
            StandaloneCluster cluster,
            Path jobJar,
            String name,
            List<String> runOptions,
            String table,
            long rows,
            int keys,
            int buckets,
            List<String> demoOptions)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(runOptions);
        args.addAll(List.of(
                "-c",
                "io.walsink.examples.UpsertDemo",
                jobJar.toString(),
                "--path",
                table,
                "--rows",
                Long.toString(rows),
                "--keys",
                Integer.toString(keys),
                "--buckets",
                Integer.toString(buckets)));
        args.addAll(demoOptions);
        return cluster.startClient(name, false, "org.apache.flink.client.cli.CliFrontend", args);
    }

    /**
     * Waits for the client to exit 0 with {@code expected} in its output: the demo's own read-back
     * ({@code table matches +YES}) when attached, the submission when detached.
     */
    static void awaitClient(StandaloneCluster cluster, String name, Process client, Duration timeout, String expected)
            throws Exception {
        boolean ended = client.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
        String output = cluster.output(name);
        assertThat(ended)
                .as("flink run of %s ended within %s; output:%n%s", name, timeout, output)
                .isTrue();
        assertThat(client.exitValue())
                .as("exit code of flink run %s; output:%n%s", name, output)
                .isZero();
        assertThat(output).as("the output of flink run %s", name).containsPattern(expected);
    }
}
