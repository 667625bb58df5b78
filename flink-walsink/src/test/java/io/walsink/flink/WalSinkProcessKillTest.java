package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Process-level failover: {@link WalSinkProcessKillJob} runs in a child JVM and is killed with
 * SIGKILL (no shutdown hook, no cancellation, no final checkpoint) once it has completed a
 * checkpoint or two; a new child restores from the newest checkpoint the killed one retained.
 * After three kills the last child runs to the end. Meanwhile a reader in this JVM polls the
 * published table. It must have read it many times, never seen a key go back to an older value or
 * vanish without a later delete in the input, and at the end the table, COMMITTED and LATEST,
 * equals the model of the whole input.
 */
class WalSinkProcessKillTest {
    private static final int KILLS = 3;
    private static final long N = 12_000;
    private static final double ROWS_PER_SECOND = 2_500;
    private static final long CHILD_TIMEOUT_SECONDS = 120;
    private static final Pattern CHECKPOINT = Pattern.compile("chk-(\\d+)");
    /** The JVM flag the surefire argLine passes ({@code walsink.jvm.flags} in the parent pom): Arrow needs it. */
    private static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();

    @Test
    void sigkilledJobsRestoredFromTheirNewestRetainedCheckpointEndWithTheModel() throws Exception {
        long seed = FailoverTestSupport.seed(
                "sigkilledJobsRestoredFromTheirNewestRetainedCheckpointEndWithTheModel", 8_201);
        ChangeGenerator changes = new ChangeGenerator(200, 6, seed == 0 ? 1 : seed); // seed 0 is the unseeded stream
        SplittableRandom random = new SplittableRandom(seed);
        Path table = dir.resolve("table");
        CommittedReadPoller poller = new CommittedReadPoller(table, changes, N, 50);
        List<String> kills = new ArrayList<>();
        try {
            poller.start();
            String restore = null;
            long lastCheckpoint = 0;
            for (int k = 0; k < KILLS; k++) {
                Path checkpoints = dir.resolve("checkpoints-" + k);
                Process child = start(k, table, changes, checkpoints, restore);
                // kill once this child completed 1 or 2 checkpoints of its own (newer than the one it restored)
                int wanted = 1 + random.nextInt(2);
                long first = awaitCheckpointAbove(child, k, checkpoints, 0); // its folder holds only its own
                assertThat(first)
                        .as("child %d continues the checkpoint ids of the one it restored", k)
                        .isGreaterThan(lastCheckpoint);
                long seen = wanted == 1 ? first : awaitCheckpointAbove(child, k, checkpoints, first);
                assertThat(child.isAlive())
                        .as("child %d still running when killed (seed %d)", k, seed)
                        .isTrue();
                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS))
                        .as("child %d gone after SIGKILL", k)
                        .isTrue();
                assertThat(child.exitValue())
                        .as("child %d exit code: 128 + SIGKILL(9)", k)
                        .isEqualTo(137);
                Path newest = newestCheckpoint(checkpoints).orElseThrow();
                lastCheckpoint = checkpointId(newest);
                assertThat(lastCheckpoint).isGreaterThanOrEqualTo(seen);
                restore = newest.toString();
                kills.add("child " + k + " killed after checkpoint " + seen + ", restoring " + newest.getFileName()
                        + ", committed reader at " + poller.polls() + " reads");
            }
            Process last = start(KILLS, table, changes, dir.resolve("checkpoints-" + KILLS), restore);
            assertThat(last.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                    .as("the last child ran to the end within %d s; %s", CHILD_TIMEOUT_SECONDS, logTail(KILLS))
                    .isTrue();
            assertThat(last.exitValue())
                    .as("the last child's exit code; %s", logTail(KILLS))
                    .isZero();
        } finally {
            for (Process child : children) {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
            }
            poller.close();
        }
        kills.forEach(System.out::println);
        System.out.println("committed reader: " + poller);

        Map<Long, String> model = changes.model(N);
        assertThat(read(table, ReadMode.COMMITTED))
                .as("COMMITTED, seed %d", seed)
                .isEqualTo(model);
        assertThat(read(table, ReadMode.LATEST)).as("LATEST, seed %d", seed).isEqualTo(model);
        assertThat(poller.polls())
                .as("committed reads, seed %d: %s", seed, poller)
                .isGreaterThanOrEqualTo(20);
        assertThat(poller.changesSeen())
                .as("reads that saw the table change, seed %d: %s", seed, poller)
                .isGreaterThanOrEqualTo(KILLS);
        assertThat(poller.violations())
                .as("what the committed reader saw, seed %d", seed)
                .isEmpty();
    }

    private Process start(int k, Path table, ChangeGenerator changes, Path checkpoints, String restore)
            throws IOException {
        // its own temp folder: a killed JVM leaves its Flink and native-library files behind
        Path tmp = Files.createDirectories(dir.resolve("tmp-" + k));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                ADD_OPENS,
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1", // a short run: start fast
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                WalSinkProcessKillJob.class.getName(),
                table.toString(),
                checkpoints.toString(),
                Integer.toString(changes.keys()),
                Integer.toString(changes.deleteEvery()),
                Long.toString(changes.seed()),
                Long.toString(N),
                Double.toString(ROWS_PER_SECOND)));
        if (restore != null) {
            command.add(restore);
        }
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log(k).toFile())
                .start();
        children.add(child);
        return child;
    }

    private Path log(int k) {
        return dir.resolve("child-" + k + ".log");
    }

    private String logTail(int k) {
        try {
            List<String> lines = Files.readAllLines(log(k));
            return "log of child " + k + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "no log of child " + k + ": " + e;
        }
    }

    /**
     * Polls the child's checkpoint folder (a real condition, with a bounded total wait) until a
     * completed checkpoint ({@code chk-N/_metadata}, written by Flink under a temporary name and
     * renamed) with an id above {@code above} exists; returns its id.
     */
    private long awaitCheckpointAbove(Process child, int k, Path checkpoints, long above) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
        while (true) {
            Optional<Path> newest = newestCheckpoint(checkpoints);
            if (newest.isPresent() && checkpointId(newest.get()) > above) {
                return checkpointId(newest.get());
            }
            if (!child.isAlive()) {
                throw new AssertionError("child " + k + " ended (exit code " + child.exitValue()
                        + ") before completing a checkpoint above " + above + "; " + logTail(k));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("child " + k + " completed no checkpoint above " + above + " within "
                        + CHILD_TIMEOUT_SECONDS + " s; " + logTail(k));
            }
            child.waitFor(20, TimeUnit.MILLISECONDS); // returns early if the child ends
        }
    }

    /** The completed checkpoint with the highest id under {@code checkpoints/{job id}/}. */
    private static Optional<Path> newestCheckpoint(Path checkpoints) throws IOException {
        if (!Files.isDirectory(checkpoints)) {
            return Optional.empty();
        }
        List<Path> completed = new ArrayList<>();
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            for (Path job : jobs.toList()) {
                try (Stream<Path> chks = Files.list(job)) {
                    chks.filter(c -> CHECKPOINT
                                    .matcher(c.getFileName().toString())
                                    .matches())
                            .filter(c -> Files.isRegularFile(c.resolve("_metadata")))
                            .forEach(completed::add);
                } catch (IOException | java.io.UncheckedIOException concurrentlyDeleted) {
                    // Flink removes subsumed checkpoints while we look
                }
            }
        }
        return completed.stream().max((a, b) -> Long.compare(checkpointId(a), checkpointId(b)));
    }

    private static long checkpointId(Path checkpoint) {
        Matcher m = CHECKPOINT.matcher(checkpoint.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException(checkpoint.toString());
        }
        return Long.parseLong(m.group(1));
    }
}
