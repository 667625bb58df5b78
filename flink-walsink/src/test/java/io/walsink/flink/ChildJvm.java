package io.walsink.flink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A job's main class run in a JVM of its own, a child of this one, with this JVM's classpath: so
 * that it can be killed with SIGKILL (no shutdown hook, no cancellation, no final checkpoint) or
 * paused with SIGSTOP, as a TaskManager's process can be. Its output goes to {@code name.log}.
 */
final class ChildJvm {
    /** The JVM flag the surefire argLine passes ({@code walsink.jvm.flags} in the parent pom): Arrow needs it. */
    static final String ADD_OPENS = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private final String name;
    private final Process process;
    private final Path log;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code main} with {@code args} in a new JVM; its log and temp folder go under {@code dir}. */
    static ChildJvm start(Path dir, String name, Class<?> main, List<String> args) throws IOException {
        // its own temp folder: a killed JVM leaves its Flink and native-library files behind
        Path tmp = Files.createDirectories(dir.resolve("tmp-" + name));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                ADD_OPENS,
                "-Xmx512m",
                "-XX:TieredStopAtLevel=1", // short runs: start fast
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        Path log = dir.resolve(name + ".log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new ChildJvm(name, process, log);
    }

    String name() {
        return name;
    }

    Process process() {
        return process;
    }

    Path log() {
        return log;
    }

    /** SIGKILL, then waits for the process to be gone; returns its exit code (137: 128 + SIGKILL). */
    int kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still there 30 s after SIGKILL");
        }
        return process.exitValue();
    }

    /** SIGSTOP: every thread of the child stops where it is, as in a long GC pause or a frozen VM. */
    void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT after {@link #pause}. */
    void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill " + signal + " " + process.pid() + " failed");
        }
    }

    /** The last 40 lines of the child's output, for a failure message. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "log of " + name + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "no log of " + name + ": " + e;
        }
    }

    /**
     * Polls the child's checkpoint folder (a real condition, with a bounded total wait) until a
     * completed checkpoint ({@code chk-N/_metadata}, written by Flink under a temporary name and
     * renamed) with an id above {@code above} exists; returns its id. Fails if the child ends first.
     */
    long awaitCheckpointAbove(Path checkpoints, long above, long timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            Optional<Path> newest = CheckpointCovers.newestCheckpoint(checkpoints);
            if (newest.isPresent() && CheckpointCovers.checkpointId(newest.get()) > above) {
                return CheckpointCovers.checkpointId(newest.get());
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " ended (exit code " + process.exitValue()
                        + ") before completing a checkpoint above " + above + "; " + logTail());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " completed no checkpoint above " + above + " within " + timeoutSeconds
                        + " s; " + logTail());
            }
            process.waitFor(20, TimeUnit.MILLISECONDS); // returns early if the child ends
        }
    }
}
