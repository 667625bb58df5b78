package io.walsink.flink.internal;

import java.util.Collection;

/**
 * Memory held by all shards of one writer subtask ({@code sink.max-unflushed-bytes-per-subtask}),
 * as measured at each shard's last budget check. Measuring walks a shard's buffers, so the total
 * is kept from the last measurements rather than recomputed per row.
 */
final class SubtaskMemory {
    private final long limit;
    private long total;

    SubtaskMemory(long limit) {
        this.limit = limit;
    }

    void measure(Bucket b) {
        long now = b.shard.heldBytes();
        total += now - b.measuredBytes;
        b.measuredBytes = now;
    }

    boolean over() {
        return total > limit;
    }

    /** Measures every shard and returns the one holding the most, or null if there are none. */
    Bucket largest(Collection<Bucket> buckets) {
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
