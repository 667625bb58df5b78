package io.walsink.flink.internal;

import io.walsink.flink.internal.memory.SinkAllocators;
import io.walsink.flink.internal.memory.WriterBudget;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.storage.ObjectStore;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a writer subtask holds until it closes: its maintenance thread, I/O threads, shards
 * (memtables), the staging batch, the object store, the Arrow allocator and its managed-memory
 * reservation, released in that order whichever way the task ends. Any of them may be null
 * (open() failed part-way).
 */
final class ShardResources {
    private static final Logger LOG = LoggerFactory.getLogger(ShardResources.class);

    private final String owner;
    private final SinkMaintenance maintenance;
    private final WriterBudget budget;
    private final IoDriver io;
    private final ShardDrivers buckets;
    private final RecordInput<?> staging;
    private final ObjectStore store;
    private final BufferAllocator allocator;

    ShardResources(
            String owner,
            SinkMaintenance maintenance,
            WriterBudget budget,
            IoDriver io,
            ShardDrivers buckets,
            RecordInput<?> staging,
            ObjectStore store,
            BufferAllocator allocator) {
        this.owner = owner;
        this.maintenance = maintenance;
        this.budget = budget;
        this.io = io;
        this.buckets = buckets;
        this.staging = staging;
        this.store = store;
        this.allocator = allocator;
    }

    /**
     * Stops maintenance (after the end of input a last run may finish, {@code finished}; a failing
     * or cancelled task's is fenced at once: either way its thread changes nothing in the table
     * once this returns), frees the memory (below) and gives the managed memory back.
     */
    void release(boolean finished, long waitSeconds) throws InterruptedException {
        try {
            if (maintenance != null) {
                maintenance.close(finished);
            }
        } finally {
            try {
                release(waitSeconds);
            } finally {
                if (budget != null) {
                    budget.release();
                }
            }
        }
    }

    /**
     * Frees everything once the I/O threads have ended: now if they end within {@code waitSeconds},
     * else from a thread of its own when they do. A cancelled task's interrupt cuts the wait short
     * (and is kept); the memory is then freed by that thread too.
     */
    private void release(long waitSeconds) {
        boolean interrupted = false;
        boolean ended;
        try {
            ended = io == null || io.close(waitSeconds);
        } catch (InterruptedException e) {
            interrupted = true;
            ended = io.ended();
        }
        if (ended) {
            free();
        } else {
            LOG.warn("walsink writer {}: I/O still running at close; its memory is freed when the I/O ends", owner);
            Thread later = new Thread(this::freeAfterIo, "walsink-release-" + owner);
            later.setDaemon(true);
            later.start();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void freeAfterIo() {
        try {
            io.awaitEnd();
            free();
            LOG.info("walsink writer {}: memory freed after its I/O ended", owner);
        } catch (InterruptedException e) {
            LOG.error("walsink writer {}: interrupted while waiting for its I/O; its memory stays allocated", owner);
        }
    }

    /** Each step on its own, so that one failing does not keep the others (and the allocator) from closing. */
    private void free() {
        if (buckets != null) {
            quietly("closing its shards", buckets::closeAll);
        }
        if (staging != null) {
            quietly("closing its staging batch", staging::close);
        }
        if (store != null) {
            quietly("closing its object store", store::close);
        }
        if (allocator != null) {
            quietly("closing its allocator", () -> SinkAllocators.close(allocator, owner));
        }
    }

    private void quietly(String step, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warn("walsink writer {}: {} failed", owner, step, e);
        }
    }
}
