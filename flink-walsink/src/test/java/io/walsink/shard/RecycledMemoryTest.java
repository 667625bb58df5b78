package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

/** A writer's allocator hands released memory back to the next request, within its bounds, and frees it at close. */
class RecycledMemoryTest {
    private static final long CHUNK = 64 * 1024;

    @Test
    void releasedMemoryServesTheNextRequestOfItsSize() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 1 << 20)) {
            long first;
            try (ArrowBuf buf = allocator.buffer(CHUNK)) {
                first = buf.memoryAddress();
            }
            assertThat(allocator.recycled().idleBytes()).isEqualTo(CHUNK);
            try (ArrowBuf again = allocator.buffer(CHUNK)) {
                assertThat(again.memoryAddress()).isEqualTo(first);
                assertThat(allocator.getAllocatedMemory()).isEqualTo(CHUNK);
            }
            assertThat(allocator.recycled().reusedCount()).isEqualTo(1);
        }
    }

    @Test
    void withoutABoundNothingIsKept() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            allocator.buffer(CHUNK).close();
            assertThat(allocator.recycled().idleBytes()).isZero();
            allocator.buffer(CHUNK).close();
            assertThat(allocator.recycled().reusedCount()).isZero();
        }
    }

    @Test
    void aRetainedBufferIsNotHandedOutAgain() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 1 << 20)) {
            ArrowBuf held = allocator.buffer(CHUNK);
            held.setLong(0, 42);
            held.getReferenceManager().retain(); // a reader's reference, as an export's
            held.close(); // the owner is done; the reader is not
            try (ArrowBuf other = allocator.buffer(CHUNK)) {
                assertThat(other.memoryAddress()).isNotEqualTo(held.memoryAddress());
                other.setLong(0, 7);
                assertThat(held.getLong(0)).isEqualTo(42);
            }
            held.getReferenceManager().release();
            assertThat(allocator.recycled().idleBytes()).isEqualTo(2 * CHUNK);
        }
    }

    @Test
    void idleMemoryKeepsToItsBoundOldestFreedFirst() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 2 * CHUNK + CHUNK / 2)) {
            ArrowBuf a = allocator.buffer(CHUNK);
            ArrowBuf b = allocator.buffer(CHUNK);
            ArrowBuf c = allocator.buffer(CHUNK);
            long newest = c.memoryAddress();
            a.close();
            b.close();
            c.close();
            assertThat(allocator.recycled().idleBytes()).isEqualTo(2 * CHUNK);
            try (ArrowBuf next = allocator.buffer(CHUNK)) {
                assertThat(next.memoryAddress()).isEqualTo(newest);
            }
        }
    }

    @Test
    void idleMemoryAndAllocatedMemoryKeepToTheLimitTogether() {
        long limit = 4 * CHUNK;
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(limit, Long.MAX_VALUE)) {
            allocator.buffer(2 * CHUNK).close();
            allocator.buffer(CHUNK).close(); // too small for the idle one: fresh memory, kept beside it
            assertThat(allocator.recycled().idleBytes()).isEqualTo(3 * CHUNK);
            try (ArrowBuf big = allocator.buffer(3 * CHUNK)) { // fits no idle chunk: fresh memory
                assertThat(allocator.getAllocatedMemory() + allocator.recycled().idleBytes())
                        .isLessThanOrEqualTo(limit);
                assertThat(allocator.recycled().idleBytes()).isEqualTo(CHUNK); // the oldest, 2 chunks, went
            }
        }
    }

    @Test
    void aSlightlyLargerChunkIsTakenAndChargedInFull() {
        long larger = CHUNK + 2048;
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 1 << 20)) {
            allocator.buffer(larger).close();
            try (ArrowBuf buf = allocator.buffer(CHUNK)) {
                assertThat(buf.capacity()).isEqualTo(CHUNK);
                assertThat(allocator.getAllocatedMemory()).isEqualTo(larger);
                assertThat(allocator.recycled().reusedCount()).isEqualTo(1);
            }
            assertThat(allocator.getAllocatedMemory()).isZero();
            allocator.buffer(CHUNK / 2).close(); // far smaller than anything kept: fresh memory
            assertThat(allocator.recycled().reusedCount()).isEqualTo(1);
        }
    }

    @Test
    void aReservationWithoutRoomForTheLargerChunkGetsFreshMemory() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 1 << 20)) {
            allocator.buffer(CHUNK + 2048).close();
            try (BufferAllocator write = allocator.newChildAllocator("write", CHUNK, CHUNK);
                    ArrowBuf buf = write.buffer(CHUNK)) {
                assertThat(write.getAllocatedMemory()).isEqualTo(CHUNK);
                assertThat(allocator.recycled().reusedCount()).isZero();
                assertThat(buf.capacity()).isEqualTo(CHUNK);
            }
        }
    }

    @Test
    void closingTheAllocatorFreesIdleMemory() {
        OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(Long.MAX_VALUE, 1 << 20);
        BufferAllocator child = allocator.newChildAllocator("write", 0, Long.MAX_VALUE);
        child.buffer(CHUNK).close();
        child.close();
        assertThat(allocator.recycled().idleBytes()).isEqualTo(CHUNK);
        allocator.close();
        assertThat(allocator.recycled().idleBytes()).isZero();
    }
}
