package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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
        Thread burner = burner("cpu-burner-1", 400);
        burner.join();
        int readsAfterBurner = sampler.reads();
        Map<String, ThreadCpu.Usage> groups = sampler.stop();

        assertThat(readsAfterBurner).as("the sampler read while the burner ran").isGreaterThan(1);
        assertThat(groups).containsKey("cpu-burner");
        // 400 ms of its own CPU, less at most the period it ended in and a tick of rounding
        assertThat(groups.get("cpu-burner").cpuSeconds()).isBetween(0.3, 2.0);
        assertThat(groups).doesNotContainKey("cpu-before");
        assertThat(groups.getOrDefault("cpu-idle", new ThreadCpu.Usage(0, 0, 0)).cpuSeconds())
                .isLessThan(0.05);
        assertThat(ThreadCpu.render(groups, 3)).contains("cpu-burner", "more)");
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
