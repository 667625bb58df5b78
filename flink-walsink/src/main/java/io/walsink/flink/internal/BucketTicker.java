package io.walsink.flink.internal;

import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;

/**
 * The WAL flush ticker: one processing-time timer per bucket with pending rows, so WAL writes
 * follow the flush interval, not the row rate. Timers are registered under the bucket's routing
 * key, set explicitly: any mailbox yield may have run another bucket's timer, which leaves Flink's
 * current key at that bucket.
 */
final class BucketTicker {
    /** A row that needs no start time and finds its ticker armed does not read the clock. */
    static final long CLOCK_UNREAD = Long.MIN_VALUE;

    private final InternalTimerService<VoidNamespace> timers;
    private final BucketRouting routing;
    private final IntConsumer setCurrentKey;
    private final LongSupplier clock;

    BucketTicker(
            InternalTimerService<VoidNamespace> timers,
            BucketRouting routing,
            IntConsumer setCurrentKey,
            LongSupplier clock) {
        this.timers = timers;
        this.routing = routing;
        this.setCurrentKey = setCurrentKey;
        this.clock = clock;
    }

    /** Arms the bucket's timer unless one is armed or nothing is pending; {@code now} may be unread. */
    void arm(Bucket b, long now) {
        if (b.armedTimer != null || !b.shard.hasPendingRows()) {
            return;
        }
        long due = b.shard.nextTickAt(now == CLOCK_UNREAD ? clock.getAsLong() : now);
        setCurrentKey.accept(routing.keyOf(b.id));
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, due);
        b.armedTimer = due;
    }

    /**
     * The bucket a timer fired for, its armed mark cleared when it was this timer; null for a timer
     * restored from a checkpoint for a shard this attempt has not opened.
     */
    Bucket fired(InternalTimer<Integer, VoidNamespace> timer, Buckets buckets) {
        Bucket b = buckets.get(routing.bucketOf(timer.getKey()));
        if (b != null && b.armedTimer != null && b.armedTimer == timer.getTimestamp()) {
            b.armedTimer = null;
        }
        return b;
    }
}
