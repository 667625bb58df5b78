package io.walsink.shard;

import io.walsink.annotation.Internal;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.rounding.SegmentRoundingPolicy;
import org.apache.arrow.memory.unsafe.UnsafeAllocationManager;

/**
 * The root allocator of a writer's Arrow memory: unpooled ({@link UnsafeAllocationManager}, so
 * nothing stays cached per classloader after a task ends) and rounding requests up to 1 KiB
 * rather than to the next power of two. Vectors ask for powers of two themselves; what the
 * default policy inflated were the odd sizes, above all a WAL entry's record-batch body, which
 * replay keeps as memtable memory: measured, replay's peak fell from 1.70x to 1.00x of the WAL
 * payload (docs/benchmarks.md).
 */
@Internal
public final class OffHeapAllocators {
    private static final long ROUNDING_SEGMENT_BYTES = 1024;

    private OffHeapAllocators() {}

    /** A root allocator that refuses to hold more than {@code limit} bytes. */
    public static RootAllocator root(long limit) {
        return new RootAllocator(RootAllocator.configBuilder()
                .maxAllocation(limit)
                .allocationManagerFactory(UnsafeAllocationManager.FACTORY)
                .roundingPolicy(new SegmentRoundingPolicy(ROUNDING_SEGMENT_BYTES))
                .build());
    }
}
