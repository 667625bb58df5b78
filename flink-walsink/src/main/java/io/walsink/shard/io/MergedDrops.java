package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * Which merged SSTables may leave one shard's manifest: those the writer saw merged into the base
 * table at least a delay ago. A reader that opens the base table and only then reads the manifests
 * (LanceDB's default read) finds an SSTable merged in between still listed, as long as its read
 * takes less than the delay; dropping at once would leave those rows in neither. Merge progress
 * only rises, so the generations that may leave are always a prefix of the list. Used by one
 * manifest update at a time, on whichever I/O thread runs it.
 */
@Internal
public final class MergedDrops {
    private final long delayNanos;
    private final LongSupplier nanoClock;
    /** {merged-through, when first seen}, ascending in both; the entries not yet old enough. */
    private final ArrayDeque<long[]> waiting = new ArrayDeque<>();

    private long droppable;

    public MergedDrops(Duration delay, LongSupplier nanoClock) {
        this.delayNanos = delay.toNanos();
        this.nanoClock = nanoClock;
    }

    /** Drops every merged generation at once, as a restore's manifest does. */
    static long immediate(long mergedThrough) {
        return mergedThrough;
    }

    /**
     * The highest generation that may leave the manifest now, given the merge progress just read
     * ({@code mergedThrough}, 0 when unknown): never above it.
     */
    synchronized long dropThrough(long mergedThrough) {
        long now = nanoClock.getAsLong();
        long newest = waiting.isEmpty() ? droppable : waiting.peekLast()[0];
        if (mergedThrough > newest) {
            waiting.addLast(new long[] {mergedThrough, now});
        }
        while (!waiting.isEmpty() && now - waiting.peekFirst()[1] >= delayNanos) {
            droppable = waiting.pollFirst()[0];
        }
        return Math.min(droppable, mergedThrough);
    }
}
