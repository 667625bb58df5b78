package io.walsink.shard.driver;

import io.walsink.annotation.Internal;

/**
 * The owner's timer, one per bucket: the driver asks to be woken for a shard's next WAL append
 * (the flush ticker) and the owner calls {@link ShardDrivers#tick} when it fires.
 */
@Internal
@FunctionalInterface
public interface ShardTimer {
    void wakeAt(int bucket, long dueMillis);
}
