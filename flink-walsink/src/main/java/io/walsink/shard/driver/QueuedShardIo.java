package io.walsink.shard.driver;

import io.walsink.annotation.Internal;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A {@link ShardIo} for owners without a Flink mailbox (tools, benchmarks, tests): tasks run on
 * the given executor, completions wait in a queue until the owner runs them ({@link #yieldOnce},
 * {@link #runCompleted}). With a direct executor ({@code Runnable::run}) the I/O runs inline and
 * only the completions are deferred, which keeps a test single-threaded and its order fixed.
 */
@Internal
public final class QueuedShardIo implements ShardIo {
    private final Executor executor;
    private final BlockingQueue<Runnable> completed = new LinkedBlockingQueue<>();
    /** Submitted tasks whose completion has not run; touched on the owner's thread only. */
    private int inFlight;

    public QueuedShardIo(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void submit(Runnable task, Runnable completion, String name) {
        inFlight++;
        executor.execute(() -> {
            try {
                task.run(); // a ShardTask keeps its own failure for the completion to judge
            } finally {
                completed.add(completion);
            }
        });
    }

    @Override
    public void yieldOnce() throws InterruptedException {
        if (inFlight == 0) {
            throw new IllegalStateException("waiting for walsink I/O with none in flight");
        }
        runOne(completed.take());
        runCompleted();
    }

    /** Runs the completions that have arrived, without waiting; how many ran. */
    public int runCompleted() {
        int ran = 0;
        for (Runnable c = completed.poll(); c != null; c = completed.poll()) {
            runOne(c);
            ran++;
        }
        return ran;
    }

    private void runOne(Runnable completion) {
        inFlight--;
        completion.run();
    }

    @Override
    public boolean idle() {
        return inFlight == 0;
    }
}
