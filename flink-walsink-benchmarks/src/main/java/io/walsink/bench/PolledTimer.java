package io.walsink.bench;

import io.walsink.shard.ShardDrivers;
import io.walsink.shard.ShardTimer;

/**
 * The owner's timer of a single-shard benchmark loop: remembers the tick the driver asked for,
 * and fires it when the loop finds it due, as a processing-time timer would.
 */
final class PolledTimer implements ShardTimer {
    private long due = Long.MAX_VALUE;

    @Override
    public void wakeAt(int bucket, long dueMillis) {
        due = dueMillis;
    }

    /** Fires the tick of bucket 0 if it is due at {@code nowMillis}. */
    void fireIfDue(ShardDrivers drivers, long nowMillis) {
        if (nowMillis >= due) {
            long at = due;
            due = Long.MAX_VALUE;
            drivers.tick(0, at);
        }
    }
}
