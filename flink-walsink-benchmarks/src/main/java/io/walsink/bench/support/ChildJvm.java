package io.walsink.bench.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs a benchmark's measuring part in a JVM of its own, on this JVM's class path, with its heap
 * committed and touched at start ({@code -Xms} = {@code -Xmx}, {@code -XX:+AlwaysPreTouch}): a
 * first touch of a page costs microseconds of CPU on a small VM, and a heap that grows while the
 * timed rounds run charges those faults to whichever side happens to grow it. Memory the native
 * allocator has taken once also stays with a process, so settings compared in one JVM would leak
 * into each other. The child knows it is one from {@link #isChild}.
 */
public final class ChildJvm {
    /** The line prefix by which a child hands its results back. */
    public static final String RESULT = "RESULT ";

    private static final String MARK = "walsink.bench.child";

    /**
     * glibc settings that keep freed memory in the process (no returning it to the kernel on every
     * free, no fresh mapping per large allocation), so lance-core's native allocations reuse
     * resident pages instead of faulting in new ones; and few arenas, so that a new thread (a new
     * job's writer) allocates from the memory an ended one freed rather than from an arena of its
     * own (measured: a q1 round's writer threads took 135 k page faults, 1.7 k with two arenas).
     */
    public static final Map<String, String> GLIBC_KEEPS_FREED_MEMORY = Collections.unmodifiableMap(new TreeMap<>(Map.of(
            "MALLOC_MMAP_THRESHOLD_", String.valueOf(32L << 20),
            "MALLOC_TRIM_THRESHOLD_", String.valueOf(1L << 30),
            "MALLOC_TOP_PAD_", String.valueOf(64L << 20),
            "MALLOC_ARENA_MAX", "2")));

    private ChildJvm() {}

    /** True in a JVM that {@link #run} started. */
    public static boolean isChild() {
        return Boolean.getBoolean(MARK);
    }

    /** The command of a child with a pre-touched heap of {@code heap} ("1g") running {@code mainAndArgs}. */
    public static List<String> command(String heap, List<String> mainAndArgs) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:+AlwaysPreTouch",
                "-D" + MARK + "=true",
                "-cp",
                System.getProperty("java.class.path")));
        command.addAll(mainAndArgs);
        return command;
    }

    /**
     * Runs {@code command} with {@code env} added to this process's environment, passing every line
     * it prints to {@code out} except its {@link #RESULT} lines, which it returns without the
     * prefix. Its standard error goes where this JVM's goes.
     *
     * @throws IllegalStateException if the child exits with a status other than 0
     */
    public static List<String> run(List<String> command, Map<String, String> env, Consumer<String> out)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(env);
        Process p = builder.start();
        List<String> results = new ArrayList<>();
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith(RESULT)) {
                    results.add(line.substring(RESULT.length()));
                } else {
                    out.accept(line + System.lineSeparator());
                }
            }
        }
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the child JVM exited with " + exit + ": " + command);
        }
        return results;
    }
}
