package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailboxImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * I/O completions reach the task thread through Flink's real task mailbox, and still do once the
 * task has left its mailbox loop and quiesced the mailbox (it then refuses new mail) while it
 * drains a notification that waits for I/O: the end of a bounded job whose last checkpoint
 * completes as the input ends. Before, the refused completion was dropped and the wait blocked on
 * the mailbox for ever (a q1 job hung so in a CI run). The timeouts turn such a hang into a failure.
 */
class IoDriverTest {
    private final TaskMailbox mailbox = new TaskMailboxImpl(Thread.currentThread());
    private final AtomicBoolean loopRunning = new AtomicBoolean(true);
    private final List<Thread> completedOn = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private IoDriver io;

    @BeforeEach
    void open() {
        io = new IoDriver(
                new MailboxExecutorImpl(mailbox, 0, StreamTaskActionExecutor.IMMEDIATE),
                1,
                "io-driver-test",
                e -> e,
                loopRunning::get);
    }

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        io.close(10);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCompletionComesThroughTheMailboxWhileTheLoopRuns() throws InterruptedException {
        submitHeldTask();
        release.countDown();

        awaitCompletion();

        assertThat(completedOn).containsExactly(Thread.currentThread());
        assertThat(io.idle()).isTrue();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCompletionTheClosingMailboxRefusesRunsOnTheTaskThreadThatWaitsForIt() throws InterruptedException {
        submitHeldTask();
        loopRunning.set(false); // the task has left its loop and drains its mailbox
        mailbox.quiesce();
        release.countDown(); // the completion now meets a mailbox that refuses it

        awaitCompletion();

        assertThat(completedOn).containsExactly(Thread.currentThread());
        assertThat(io.idle()).isTrue();
        assertThat(mailbox.getState()).isEqualTo(TaskMailbox.State.QUIESCED);
    }

    private void submitHeldTask() {
        io.submit(
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                () -> completedOn.add(Thread.currentThread()),
                "held task");
    }

    /** What {@code ShardDrivers} does while it waits for I/O. */
    private void awaitCompletion() throws InterruptedException {
        while (completedOn.isEmpty()) {
            assertThat(io.idle()).as("I/O in flight while waiting for it").isFalse();
            io.yieldOnce();
        }
    }
}
