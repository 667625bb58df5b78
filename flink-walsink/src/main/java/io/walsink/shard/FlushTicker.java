package io.walsink.shard;

import java.time.Duration;

/**
 * When the next WAL append of a shard is due.
 *
 * <p>The owner keeps at most one timer per shard, armed only while rows are pending. The next
 * tick is due one interval after the last tick <em>ran</em>, not after it was scheduled: a tick
 * that fires late (a slow PUT held the shard, the task thread was busy) is followed by one
 * append, never by a burst of catch-up appends. A shard that was idle for longer than the
 * interval appends its first new rows at once.
 */
final class FlushTicker {
    private final long intervalMillis;
    private long lastTickMillis = Long.MIN_VALUE / 2;

    public FlushTicker(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("flush interval must be positive, was " + interval);
        }
        this.intervalMillis = interval.toMillis();
    }

    /** When the tick for rows that became pending at {@code nowMillis} should fire. */
    public long dueAt(long nowMillis) {
        return dueAt(nowMillis, intervalMillis);
    }

    /**
     * As {@link #dueAt(long)}, with ticks at least {@code spacingMillis} apart if that is longer
     * than the interval (the owner spreading its appends over many shards).
     */
    public long dueAt(long nowMillis, long spacingMillis) {
        return Math.max(nowMillis, lastTickMillis + Math.max(intervalMillis, spacingMillis));
    }

    /** Records that a tick ran at {@code nowMillis}; the next is due one interval later. */
    public void ticked(long nowMillis) {
        lastTickMillis = nowMillis;
    }

    public long intervalMillis() {
        return intervalMillis;
    }
}
