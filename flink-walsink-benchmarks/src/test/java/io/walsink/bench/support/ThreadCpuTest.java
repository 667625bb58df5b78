package io.walsink.bench.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-thread CPU from {@code /proc}: a thread that burns a known amount of CPU and ends before the
 * span does is still counted, under its name without numbering, and a thread that does nothing
 * during the span is not charged for what it did before it.
 */
class ThreadCpuTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Test
    void groupsTakeTheNumberingOff() {
        assertThat(ThreadCpu.group("walsink-io-0-3")).isEqualTo("walsink-io");
        assertThat(ThreadCpu.group("GC Thread#1")).isEqualTo("GC Thread");
        assertThat(ThreadCpu.group("Sink: Writer (1")).isEqualTo("Sink: Writer");
        assertThat(ThreadCpu.group("C2 CompilerThre")).isEqualTo("C2 CompilerThre");
        assertThat(ThreadCpu.group("42")).isEqualTo("42");
    }

    @Test
    void aThreadThatIsGoneReadsAsEnded(@TempDir Path dir) throws Exception {
        assumeTrue(ThreadCpu.available(), "needs Linux's /proc/self/task");
        assertThat(ThreadCpu.readTask(dir.resolve("123456789"))).isEmpty();
        Path self =
                ThreadCpu.TASKS.resolve(String.valueOf(ProcessHandle.current().pid()));
        assertThat(ThreadCpu.readTask(self)).isPresent(); // the main thread's id is the process's
    }

    @Test
    void aThreadThatEndedWithinTheSpanIsCountedAndAnIdleOneIsNot() throws Exception {
        assumeTrue(ThreadCpu.available(), "needs Linux's /proc/self/task");
        Thread before = burner("cpu-before-7", 200);
        before.join(); // ended before the span: its CPU is not in it
        Thread idle = new Thread(ThreadCpuTest::sleepUninterruptibly, "cpu-idle-3"); // asleep all along
        idle.setDaemon(true);
        idle.start();

        ThreadCpu.Sampler sampler = ThreadCpu.start(Duration.ofMillis(20));
        // The burner ends only once the sampler has read twice after its burning, so its whole CPU
        // is in a reading however a loaded machine schedules the two threads.
        Thread burner = new Thread(
                () -> {
                    burnOwnCpu(400);
                    int after = sampler.reads() + 2;
                    while (sampler.reads() < after) {
                        LockSupport.parkNanos(1_000_000);
                    }
                },
                "cpu-burner-1");
        burner.start();
        burner.join();
        Map<String, ThreadCpu.Usage> groups = sampler.stop();

        assertThat(groups).containsKey("cpu-burner");
        // 400 ms of its own CPU by the JVM's clock, give or take the kernel's 10 ms ticks
        assertThat(groups.get("cpu-burner").cpuSeconds()).isBetween(0.38, 2.0);
        assertThat(groups).doesNotContainKey("cpu-before");
        assertThat(groups.getOrDefault("cpu-idle", new ThreadCpu.Usage(0, 0, 0)).cpuSeconds())
                .isLessThan(0.05);
        assertThat(ThreadCpu.render(groups, 3)).contains("cpu-burner");
    }

    @Test
    void renderShowsTheLargestGroupsThenWhatTheRestAddUpTo() {
        Map<String, ThreadCpu.Usage> groups = new java.util.LinkedHashMap<>();
        groups.put("small", new ThreadCpu.Usage(0.1, 0, 1));
        groups.put("largest", new ThreadCpu.Usage(3.0, 0.5, 10));
        groups.put("middle", new ThreadCpu.Usage(1.0, 0, 2));
        groups.put("smaller", new ThreadCpu.Usage(0.2, 0.1, 3));
        String table = ThreadCpu.render(groups, 2);
        assertThat(table).contains("largest", "middle", "(2 more)").doesNotContain("small ");
        assertThat(table.indexOf("largest")).isLessThan(table.indexOf("middle"));
        // the two left out: 0.1 + 0.3 CPU seconds, 4 faults
        assertThat(table.lines()
                        .filter(l -> l.startsWith("(2 more)"))
                        .findFirst()
                        .orElseThrow())
                .matches("\\(2 more\\)\\s+0\\.4\\s+0\\.1\\s+4");
    }

    private static Thread burner(String name, long cpuMillis) {
        Thread t = new Thread(() -> burnOwnCpu(cpuMillis), name);
        t.start();
        return t;
    }

    /** Spins until this thread has used {@code millis} of CPU by the JVM's own count. */
    private static void burnOwnCpu(long millis) {
        long until = THREADS.getCurrentThreadCpuTime() + millis * 1_000_000;
        long x = 0;
        while (THREADS.getCurrentThreadCpuTime() < until) {
            for (int i = 0; i < 10_000; i++) {
                x += i * 31L ^ x;
            }
        }
        if (x == 42) {
            System.out.print(""); // keeps the loop from being optimised away
        }
    }

    private static void sleepUninterruptibly() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
