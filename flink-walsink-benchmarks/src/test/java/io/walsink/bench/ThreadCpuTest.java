package io.walsink.bench;

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
