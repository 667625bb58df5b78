package io.walsink.shard;

import io.walsink.annotation.Internal;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.rounding.SegmentRoundingPolicy;

/**
 * The root allocator of a writer's Arrow memory: {@code malloc}ed memory (Arrow's unsafe
 * allocation manager's way, so nothing stays cached per classloader after a task ends), released
 * memory kept for reuse up to a bound and freed when the allocator closes ({@link RecycledMemory}),
 * and requests rounded up to 1 KiB rather than to the next power of two. Vectors ask for powers of
 * two themselves; what the default policy inflated were the odd sizes, above all a WAL entry's
 * record-batch body, which replay keeps as memtable memory: measured, replay's peak fell from
 * 1.70x to 1.00x of the WAL payload (docs/benchmarks.md).
 */
@Internal
public final class OffHeapAllocators {
    private static final long ROUNDING_SEGMENT_BYTES = 1024;

    private OffHeapAllocators() {}

    /** A root allocator that refuses to hold more than {@code limit} bytes and frees what is released. */
    public static Recycling root(long limit) {
        return root(limit, 0);
    }

    /**
     * A root allocator that refuses to hold more than {@code limit} bytes and keeps at most
     * {@code maxIdleBytes} of released memory for reuse, within what the limit leaves.
     */
    public static Recycling root(long limit, long maxIdleBytes) {
        return new Recycling(limit, new RecycledMemory(maxIdleBytes));
    }

    /** A root allocator whose released memory is kept for reuse; closing it frees that memory too. */
    @Internal
    public static final class Recycling extends RootAllocator {
        private final RecycledMemory recycled;

        private Recycling(long limit, RecycledMemory recycled) {
            super(RootAllocator.configBuilder()
                    .maxAllocation(limit)
                    .allocationManagerFactory(recycled)
                    .roundingPolicy(new SegmentRoundingPolicy(ROUNDING_SEGMENT_BYTES))
                    .build());
            this.recycled = recycled;
        }

        public RecycledMemory recycled() {
            return recycled;
        }

        /** Frees the kept memory even when Arrow refuses to close (buffers still allocated). */
        @Override
        public void close() {
            try {
                super.close();
            } finally {
                recycled.close();
            }
        }
    }
}
