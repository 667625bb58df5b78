package io.walsink.flink.internal;

import java.util.Collection;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Flink backpressure instead of an OutOfMemoryError: each shard's budget
 * ({@code sink.max-unflushed-bytes}) and the subtask's ({@code sink.max-unflushed-bytes-per-subtask}).
 * The subtask's total is kept from each shard's last measurement, since measuring walks a shard's
 * buffers. The allocator's own count (which also sees SSTable writes in flight) counts as over when
 * it passes {@code pressure}, short of the allocator's cap.
 */
final class SubtaskMemory {
    private final long limit;
    private final BufferAllocator allocator;
    private final long pressure;
    private final BucketTasks tasks;
    private final IoDriver io;
    private final LongSupplier clock;
    private long total;

    SubtaskMemory(
            long limit, BufferAllocator allocator, long pressure, BucketTasks tasks, IoDriver io, LongSupplier clock) {
        this.limit = limit;
        this.allocator = allocator;
        this.pressure = pressure;
        this.tasks = tasks;
        this.io = io;
        this.clock = clock;
    }

    /**
     * Yields to the mailbox until SSTable writes bring {@code b} under its budget and the subtask
     * under its own. For the subtask's budget the largest shard is relieved first, freezing its
     * active memtable if it has no frozen one. Gives up (goes over budget) rather than hang when no
     * I/O could help.
     *
     * @return whether it yielded: timers may then have run and changed Flink's current key
     */
    boolean awaitRoom(Bucket b, Collection<Bucket> all) throws InterruptedException {
        measure(b);
        boolean yielded = false;
        while (true) {
            Bucket target = b.shard.overBudget() ? b : over() ? largest(all) : null;
            if (target == null) {
                return yielded;
            }
            if (!target.shard.overBudget() && target.shard.frozenMemtables() == 0) {
                target.ages.freeze(target.shard, clock.getAsLong());
            }
            tasks.startAppend(target);
            tasks.startFlush(target);
            if (!target.shard.appendInFlight() && !target.shard.flushInFlight()) {
                return yielded;
            }
            io.yieldOnce();
            yielded = true;
            measure(target);
            measure(b);
        }
    }

    private void measure(Bucket b) {
        long now = b.shard.heldBytes();
        total += now - b.measuredBytes;
        b.measuredBytes = now;
    }

    private boolean over() {
        return total > limit || allocator.getAllocatedMemory() > pressure;
    }

    /** Measures every shard and returns the one holding the most. */
    private Bucket largest(Collection<Bucket> buckets) {
        Bucket largest = null;
        for (Bucket b : buckets) {
            measure(b);
            if (largest == null || b.measuredBytes > largest.measuredBytes) {
                largest = b;
            }
        }
        return largest;
    }
}
