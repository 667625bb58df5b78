package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** A writer's allocator holds what was asked for (to the KiB), not the next power of two, and keeps to its limit. */
class OffHeapAllocatorsTest {
    @Test
    void anOddSizeTakesItsSizeRoundedToAKibibyte() {
        try (RootAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE);
                ArrowBuf body = allocator.buffer(300_001)) {
            assertThat(allocator.getAllocatedMemory()).isEqualTo(300_032); // 293 KiB, not 512 KiB
            assertThat(body.capacity()).isGreaterThanOrEqualTo(300_001);
        }
    }

    @Test
    void theLimitHolds() {
        try (RootAllocator allocator = OffHeapAllocators.root(1 << 20);
                ArrowBuf first = allocator.buffer(700_000)) {
            assertThatThrownBy(() -> allocator.buffer(700_000)).isInstanceOf(OutOfMemoryException.class);
            assertThat(first.capacity()).isGreaterThanOrEqualTo(700_000);
        }
    }
}
