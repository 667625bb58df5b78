package io.walsink.bench.support;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * CPU time and minor page faults of this JVM's threads over a span, summed by thread name with its
 * numbering taken off ({@code walsink-io-0-3} counts as {@code walsink-io}), from Linux's
 * {@code /proc/self/task}. Native threads count too (lance-core's {@code tokio-rt-worker}s), which
 * the JVM's own thread CPU figures miss. Which thread groups a slower configuration spends its
 * extra CPU in says more than the process total: the writing task, the I/O threads, lance-core, the
 * compactor, the JIT.
 *
 * <p>A Flink job's threads end with it, and Linux forgets an ended thread, so a sampler reads every
 * thread each period and keeps the last figures it saw: a thread's last period before it ended may
 * be missed. Assumes the kernel's usual 100 clock ticks a second (Java cannot ask {@code sysconf}).
 */
public final class ThreadCpu {
    public static final Path TASKS = Path.of("/proc/self/task");
    private static final double TICKS_PER_SECOND = 100;

    /** One thread group's CPU seconds (user and system) and minor page faults over the span. */
    public record Usage(double userSeconds, double systemSeconds, long minorFaults) {
        public double cpuSeconds() {
            return userSeconds + systemSeconds;
        }

        Usage plus(Usage o) {
            return new Usage(userSeconds + o.userSeconds, systemSeconds + o.systemSeconds, minorFaults + o.minorFaults);
        }

        Usage minus(Usage o) {
            return new Usage(userSeconds - o.userSeconds, systemSeconds - o.systemSeconds, minorFaults - o.minorFaults);
        }
    }

    private ThreadCpu() {}

    public static boolean available() {
        return Files.isDirectory(TASKS);
    }

    /** Starts reading every thread each {@code period}; {@link Sampler#stop} ends the span. */
    public static Sampler start(Duration period) {
        if (!available()) {
            throw new IllegalStateException("per-thread CPU needs Linux's " + TASKS);
        }
        return new Sampler(period);
    }

    /** {@code name} without its numbering: trailing digits and the separators before them. */
    static String group(String name) {
        String g = name.strip().replaceAll("[-_#:(/\\s\\d]*\\d[-_#:(/\\s\\d]*$", "");
        return g.isEmpty() ? name.strip() : g;
    }

    /** The groups by CPU, largest first, at most {@code top} of them, then what the rest add up to. */
    public static String render(Map<String, Usage> groups, int top) {
        TextTable table = new TextTable("thread group", ">CPU s", ">of it system s", ">minor page faults");
        var sorted = groups.entrySet().stream()
                .sorted(Comparator.comparingDouble(
                                (Map.Entry<String, Usage> e) -> e.getValue().cpuSeconds())
                        .reversed())
                .toList();
        Usage rest = new Usage(0, 0, 0);
        for (int i = 0; i < sorted.size(); i++) {
            Usage u = sorted.get(i).getValue();
            if (i < top) {
                table.row(
                        sorted.get(i).getKey(),
                        seconds(u.cpuSeconds()),
                        seconds(u.systemSeconds()),
                        faults(u.minorFaults()));
            } else {
                rest = rest.plus(u);
            }
        }
        if (sorted.size() > top) {
            table.row(
                    "(" + (sorted.size() - top) + " more)",
                    seconds(rest.cpuSeconds()),
                    seconds(rest.systemSeconds()),
                    faults(rest.minorFaults()));
        }
        return table.render();
    }

    private static String faults(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.1f", s);
    }

    /** Minor page faults of the calling thread so far ({@code /proc/thread-self/stat}). */
    public static long currentThreadMinorFaults() {
        return statFaults(Path.of("/proc/thread-self/stat"));
    }

    /** Minor page faults of this whole process so far, every thread's, ended ones too ({@code /proc/self/stat}). */
    public static long processMinorFaults() {
        return statFaults(Path.of("/proc/self/stat"));
    }

    private static long statFaults(Path stat) {
        try {
            return Task.parse("", Files.readString(stat)).used().minorFaults();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + stat + ": page faults need Linux", e);
        }
    }

    /** Reads every thread's name and figures now; a thread that ends meanwhile is left out. */
    static Map<String, Task> read() {
        Map<String, Task> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                readTask(task).ifPresent(t -> threads.put(task.getFileName().toString(), t));
            }
        } catch (IOException | DirectoryIteratorException e) {
            throw new IllegalStateException("cannot list " + TASKS, e);
        }
        return threads;
    }

    /**
     * One thread's figures, or empty when it ended before they were read: its folder is gone, or
     * (between the open and the read) its files answer "No such process".
     */
    static Optional<Task> readTask(Path task) {
        try {
            String name = Files.readString(task.resolve("comm")).strip();
            return Optional.of(Task.parse(name, Files.readString(task.resolve("stat"))));
        } catch (IOException ended) {
            return Optional.empty();
        }
    }

    /** One thread's name and cumulative figures. */
    record Task(String name, Usage used) {
        /** Parses {@code /proc/self/task/N/stat}: fields after the parenthesised name, 1-based 10, 14, 15. */
        static Task parse(String name, String stat) {
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).strip().split("\\s+");
            // f[0] is field 3 (state): minflt is field 10, utime 14, stime 15
            return new Task(
                    name,
                    new Usage(
                            Long.parseLong(f[11]) / TICKS_PER_SECOND,
                            Long.parseLong(f[12]) / TICKS_PER_SECOND,
                            Long.parseLong(f[7])));
        }
    }

    /** Reads every thread each period on a daemon thread of its own until stopped. */
    public static final class Sampler {
        private final Map<String, Task> atStart;
        private final Map<String, Task> lastSeen = new HashMap<>();
        private final CountDownLatch stop = new CountDownLatch(1);
        private final Thread poller;
        private int reads;

        private Sampler(Duration period) {
            atStart = read();
            lastSeen.putAll(atStart);
            reads = 1;
            poller = new Thread(
                    () -> {
                        try {
                            while (!stop.await(period.toMillis(), TimeUnit.MILLISECONDS)) {
                                record(read());
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "thread-cpu-sampler");
            poller.setDaemon(true);
            poller.start();
        }

        private synchronized void record(Map<String, Task> now) {
            lastSeen.putAll(now);
            reads++;
        }

        /** How many times every thread was read, the reads at start and at stop included. */
        synchronized int reads() {
            return reads;
        }

        /** Ends the span: each thread group's CPU and faults since the start, by group name. */
        public Map<String, Usage> stop() throws InterruptedException {
            stop.countDown();
            poller.join();
            record(read());
            Map<String, Usage> groups = new TreeMap<>();
            synchronized (this) {
                for (Map.Entry<String, Task> e : lastSeen.entrySet()) {
                    Task before = atStart.get(e.getKey());
                    Usage used = before == null
                            ? e.getValue().used()
                            : e.getValue().used().minus(before.used());
                    groups.merge(group(e.getValue().name()), used, Usage::plus);
                }
            }
            groups.values().removeIf(u -> u.cpuSeconds() == 0 && u.minorFaults() == 0);
            return new LinkedHashMap<>(groups);
        }
    }
}
