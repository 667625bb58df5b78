package io.walsink.shard;

import io.walsink.annotation.Internal;

/** What the drivers report as it happens, for the owner's metrics; all on the owner's thread. */
@Internal
public interface ShardEvents {
    ShardEvents NONE = new ShardEvents() {};

    /** A WAL append of {@code bytes} became durable; its oldest row had waited {@code lagMillis}. */
    default void appended(long bytes, long lagMillis) {}

    default void sstableWritten() {}

    /** {@code count} SSTables were published in one manifest version. */
    default void sstablesPublished(int count) {}

    /** One published SSTable's first row had waited {@code waitedMillis} since it arrived. */
    default void published(long waitedMillis) {}

    /** A write waited {@code millis} for memory (backpressure). */
    default void backpressured(long millis) {}
}
