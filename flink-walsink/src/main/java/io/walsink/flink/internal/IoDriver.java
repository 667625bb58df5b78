package io.walsink.flink.internal;

import io.walsink.shard.driver.ShardIo;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.function.ThrowingRunnable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards' {@link ShardIo} in a Flink task: object-store work runs on a pool of I/O threads and
 * each result comes back through the task's mailbox, so shard state is only ever touched on the
 * task thread and no store call blocks it.
 */
final class IoDriver implements ShardIo {
    private static final Logger LOG = LoggerFactory.getLogger(IoDriver.class);

    private final MailboxExecutor mailbox;
    private final ExecutorService io;
    private final UnaryOperator<Exception> explainFailure;
    private final BooleanSupplier mailboxLoopRunning;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Completions the mailbox refused because the task is closing; a waiting task thread runs them. */
    private final BlockingQueue<ThrowingRunnable<Exception>> refused = new LinkedBlockingQueue<>();

    /**
     * @param explainFailure turns a completion's failure into the one the task fails with
     * @param mailboxLoopRunning whether the task still runs its mailbox loop; once it has left it
     *     (the task is closing and drains its mailbox, which then refuses new mail), a wait for I/O
     *     cannot block on the mailbox and runs the refused completions itself
     */
    IoDriver(
            MailboxExecutor mailbox,
            int threads,
            String threadName,
            UnaryOperator<Exception> explainFailure,
            BooleanSupplier mailboxLoopRunning) {
        this.mailbox = mailbox;
        this.explainFailure = explainFailure;
        this.mailboxLoopRunning = mailboxLoopRunning;
        AtomicInteger count = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, threadName + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs {@code task} on an I/O thread and {@code completion} on the task thread after it. The
     * completion is what rethrows a poisoned shard's error, failing the task so Flink restarts it.
     */
    @Override
    public void submit(Runnable task, Runnable completion, String name) {
        inFlight.incrementAndGet();
        io.execute(() -> {
            try {
                task.run();
            } finally {
                ThrowingRunnable<Exception> done = () -> {
                    inFlight.decrementAndGet();
                    try {
                        completion.run();
                    } catch (RuntimeException e) {
                        throw explainFailure.apply(e);
                    }
                };
                try {
                    mailbox.execute(done, name);
                } catch (RuntimeException closed) {
                    // The task is closing: a notification it drains from its mailbox (a checkpoint
                    // completed at the end of input) may still wait for this completion, and runs it
                    // from here; otherwise the shard's state dies with the task.
                    LOG.debug("{} completion refused by the closing mailbox", name, closed);
                    refused.add(done);
                }
            }
        });
    }

    /**
     * Runs mails (completions, timers) until one arrives; the caller re-checks its condition. Once
     * the task has left its mailbox loop no mail can arrive: it then runs a refused completion, or
     * a mail already queued, or waits a millisecond for either.
     */
    @Override
    public void yieldOnce() throws InterruptedException {
        ThrowingRunnable<Exception> completion = refused.poll();
        if (completion == null && mailboxLoopRunning.getAsBoolean()) {
            mailbox.yield();
            return;
        }
        if (completion == null && !mailbox.tryYield()) {
            completion = refused.poll(1, TimeUnit.MILLISECONDS);
        }
        if (completion != null) {
            try {
                completion.run();
            } catch (Exception e) {
                ExceptionUtils.rethrow(e); // as the mailbox would have failed the task with it
            }
        }
    }

    @Override
    public boolean idle() {
        return inFlight.get() == 0;
    }

    /**
     * Lets I/O in flight and queued end (its completions are dropped with the mailbox).
     *
     * @return false if it did not end in time; it was then interrupted and may still read memory
     */
    boolean close(long timeoutSeconds) throws InterruptedException {
        io.shutdown();
        try {
            if (io.awaitTermination(timeoutSeconds, TimeUnit.SECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            io.shutdownNow(); // a cancelled task: hurry the I/O along
            throw e;
        }
        io.shutdownNow();
        return false;
    }

    /** Waits, without a limit, until every I/O thread has ended (after {@link #close}). */
    void awaitEnd() throws InterruptedException {
        while (!io.awaitTermination(1, TimeUnit.MINUTES)) {
            LOG.warn("walsink I/O threads {} still running after close", io);
        }
    }

    boolean ended() {
        return io.isTerminated();
    }
}
