package io.walsink.flink.internal.routing;

import io.walsink.annotation.Internal;
import io.walsink.shard.driver.ShardTimer;
import java.util.function.IntConsumer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;

/**
 * The WAL flush ticker in Flink: a processing-time timer per bucket, registered under the
 * bucket's routing key, set explicitly: any mailbox yield may have run another bucket's timer,
 * which leaves Flink's current key at that bucket. Timers are checkpointed with the keyed state,
 * so a restored one may fire for a shard that no longer waits for it; the driver tells.
 */
@Internal
public final class BucketTicker implements ShardTimer {
    private final InternalTimerService<VoidNamespace> timers;
    private final BucketRouting routing;
    private final IntConsumer setCurrentKey;

    public BucketTicker(InternalTimerService<VoidNamespace> timers, BucketRouting routing, IntConsumer setCurrentKey) {
        this.timers = timers;
        this.routing = routing;
        this.setCurrentKey = setCurrentKey;
    }

    @Override
    public void wakeAt(int bucket, long dueMillis) {
        setCurrentKey.accept(routing.keyOf(bucket));
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, dueMillis);
    }

    /** The bucket a fired timer was registered for. */
    public int bucketOf(InternalTimer<Integer, VoidNamespace> timer) {
        return routing.bucketOf(timer.getKey());
    }
}
