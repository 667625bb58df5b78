package io.walsink.shard.driver;

import io.walsink.annotation.Internal;

/**
 * Where a shard's object-store work runs, and how its results come back: a task runs on some I/O
 * thread, its completion on the owner's thread, so shard state is only touched there. The Flink
 * operator hands completions back through the task's mailbox; {@link QueuedShardIo} through a
 * queue the owner drains.
 */
@Internal
public interface ShardIo {
    /**
     * Runs {@code task} off the owner's thread and {@code completion} on it afterwards. What the
     * completion throws (a poisoned shard's error) fails the owner.
     */
    void submit(Runnable task, Runnable completion, String name);

    /** Runs the owner's pending work (completions, timers) until at least one piece ran. */
    void yieldOnce() throws InterruptedException;

    /** Whether no submitted task still has its completion to run. */
    boolean idle();
}
