package io.walsink.shard.io;

/**
 * One piece of a shard's I/O: prepared on the owner thread by a {@code begin...} call of
 * {@link io.walsink.shard.ShardWriter}, {@link #run()} on any thread, handed back to the matching
 * {@code complete...} call on the owner thread. {@code run()} never throws; a failure is kept for
 * the owner to judge.
 */
abstract class ShardTask implements Runnable {
    private volatile Throwable failure;
    private volatile boolean ran;

    @Override
    public final void run() {
        try {
            execute();
        } catch (Throwable t) {
            failure = t;
        } finally {
            ran = true;
        }
    }

    /** The I/O itself; what it throws becomes {@link #failure()}. */
    abstract void execute() throws Exception;

    /** What the task is, for messages: "append at 7". */
    abstract String describe();

    boolean ran() {
        return ran;
    }

    Throwable failure() {
        return failure;
    }

    /** Checks that this task is {@code inFlight}, the one its writer is waiting for, and has run. */
    final void checkHandedBack(ShardTask inFlight) {
        if (this != inFlight) {
            throw new IllegalStateException(describe() + " is not the one in flight");
        }
        if (!ran) {
            throw new IllegalStateException(describe() + " has not run");
        }
    }
}
