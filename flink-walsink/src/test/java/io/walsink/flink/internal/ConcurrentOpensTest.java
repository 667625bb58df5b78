package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A subtask's shard restores run side by side, come back in their order, and a failed one leaves
 * nothing open: every restore that succeeded beside it is closed and the first failure is thrown.
 */
@Timeout(60)
class ConcurrentOpensTest {

    /** Stands in for a shard writer: what matters is whether it was closed. */
    static final class Opened implements AutoCloseable {
        final int index;
        final String thread = Thread.currentThread().getName();
        final AtomicInteger closes = new AtomicInteger();

        Opened(int index) {
            this.index = index;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void opensRunAtTheSameTimeAndComeBackInTheirOrder() {
        int n = 4;
        // Each open waits until all four are running: one after another, the first would time out.
        CyclicBarrier allRunning = new CyclicBarrier(n);
        List<Supplier<Opened>> opens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            opens.add(() -> {
                awaitOthers(allRunning);
                return new Opened(index);
            });
        }

        List<Opened> opened = ConcurrentOpens.run(opens, n, "restore-test");

        assertThat(opened).extracting(o -> o.index).containsExactly(0, 1, 2, 3);
        assertThat(opened)
                .extracting(o -> o.thread)
                .doesNotHaveDuplicates()
                .allMatch(t -> t.startsWith("restore-test-"));
        assertThat(opened).allMatch(o -> o.closes.get() == 0);
    }

    @Test
    void atMostTheParallelismRunsAtOnce() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CyclicBarrier pairs = new CyclicBarrier(2);
        List<Supplier<Opened>> opens = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int index = i;
            opens.add(() -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                threads.add(Thread.currentThread().getName());
                awaitOthers(pairs); // two at a time can pass, so the test ends only if two run together
                running.decrementAndGet();
                return new Opened(index);
            });
        }

        List<Opened> opened = ConcurrentOpens.run(opens, 2, "restore-test");

        assertThat(opened).extracting(o -> o.index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(most.get()).isEqualTo(2);
        assertThat(threads).hasSize(2);
    }

    @Test
    void aFailureClosesEveryOpenBesideItAndIsThrownWithTheLaterOnesSuppressed() {
        List<Opened> made = new ArrayList<>();
        List<Supplier<Opened>> opens = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int index = i;
            opens.add(() -> {
                if (index == 2 || index == 4) {
                    throw new IllegalStateException("restore " + index + " failed");
                }
                Opened o = new Opened(index);
                synchronized (made) {
                    made.add(o);
                }
                return o;
            });
        }

        assertThatThrownBy(() -> ConcurrentOpens.run(opens, 3, "restore-test"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("restore 2 failed")
                .satisfies(e -> assertThat(e.getSuppressed())
                        .extracting(Throwable::getMessage)
                        .containsExactly("restore 4 failed"));
        assertThat(made).hasSize(4).allMatch(o -> o.closes.get() == 1);
    }

    @Test
    void oneAtATimeOnTheCallingThreadWhenTheParallelismIsOne() {
        List<Opened> made = new ArrayList<>();
        List<Supplier<Opened>> opens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int index = i;
            opens.add(() -> {
                if (index == 2) {
                    throw new IllegalArgumentException("restore 2 failed");
                }
                Opened o = new Opened(index);
                made.add(o);
                return o;
            });
        }

        assertThatThrownBy(() -> ConcurrentOpens.run(opens, 1, "restore-test")).hasMessage("restore 2 failed");
        assertThat(made).hasSize(2).allMatch(o -> o.closes.get() == 1);
        assertThat(made)
                .extracting(o -> o.thread)
                .containsOnly(Thread.currentThread().getName());
    }

    /**
     * A task cancelled while its shards reopen: opens not yet started never start, running ones are
     * interrupted and waited for, whatever opened is closed and the call ends with the interrupt.
     * Waiting on the futures of opens the pool dropped hung a cancelled task for ever (a failover
     * test caught it in CI).
     */
    @Test
    void anInterruptDropsTheOpensNotStartedAndClosesWhatOpened() throws Exception {
        CountDownLatch twoRunning = new CountDownLatch(2);
        AtomicInteger started = new AtomicInteger();
        List<Opened> made = Collections.synchronizedList(new ArrayList<>());
        List<Supplier<Opened>> opens = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int index = i;
            opens.add(() -> {
                started.incrementAndGet();
                Opened o = new Opened(index);
                made.add(o);
                if (index == 0) {
                    return o; // done before the interrupt: must be closed by it
                }
                twoRunning.countDown();
                try {
                    new CountDownLatch(1).await(); // until interrupted
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("restore " + index + " interrupted");
            });
        }
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        Thread task = new Thread(() -> {
            try {
                ConcurrentOpens.run(opens, 2, "restore-test");
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        task.start();
        assertThat(twoRunning.await(20, TimeUnit.SECONDS)).isTrue();
        task.interrupt();
        task.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(task.isAlive()).as("the cancelled task still waits").isFalse();
        assertThat(thrown.get())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("interrupted while reopening shards");
        assertThat(interruptKept).isTrue();
        assertThat(started.get()).as("opens started").isLessThan(8);
        assertThat(made).filteredOn(o -> o.index == 0).allMatch(o -> o.closes.get() == 1);
    }

    private static void awaitOthers(CyclicBarrier barrier) {
        try {
            barrier.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("the opens did not run at the same time", e);
        }
    }
}
