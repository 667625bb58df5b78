package io.walsink.shard;

import io.walsink.annotation.Internal;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.unsafe.UnsafeAllocationManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory of one writer's allocator kept for reuse once released, instead of freed: a
 * memtable's batches are released when its SSTable is written, and the next memtable's batches
 * take the same memory. Fresh memory costs a page fault at the first touch of every 4 KiB page
 * (the allocator zeroes a new vector's buffers, so the writer thread takes them all), about 13 us
 * of CPU each on a small VM; in steady state a recycled page is already mapped.
 *
 * <p>Memory comes back only when Arrow's reference count of its buffer drops to zero, the moment
 * Arrow's unsafe allocation manager would free it: a memtable closes its batches once its SSTable
 * is written, and a batch exported to lance-core (the C Data Interface) stays retained until
 * lance-core releases it.
 *
 * <p>Bounds: idle memory never exceeds {@code maxIdleBytes}, the oldest chunk freed first past it;
 * and never what the allocator's limit leaves beside what it holds: a chunk is kept only if it
 * fits, and fresh memory frees idle chunks, oldest first, until the two together are within the
 * limit again. A request takes an idle chunk at most a sixteenth larger than it asked for, and only
 * if the asking allocator has room to be charged the whole chunk, so its count stays the memory
 * held and a reservation's limit holds. {@link #close} frees every idle chunk, and memory released
 * after it is freed at once.
 */
@Internal
public final class RecycledMemory implements AllocationManager.Factory, AutoCloseable {
    /** Smaller buffers come from {@code malloc}'s own free lists without fresh pages. */
    public static final long MIN_RECYCLED_BYTES = 16 * 1024;

    private final long maxIdleBytes;
    private final TreeMap<Long, Deque<Idle>> idleBySize = new TreeMap<>(); // oldest first
    private final Set<Idle> idleOrder = new LinkedHashSet<>(); // oldest first
    private long idleBytes;
    private long reused;
    private long fresh;
    private boolean closed;

    public RecycledMemory(long maxIdleBytes) {
        this.maxIdleBytes = maxIdleBytes;
    }

    @Override
    public AllocationManager create(BufferAllocator accounting, long size) {
        if (size >= MIN_RECYCLED_BYTES && maxIdleBytes > 0) {
            // a larger chunk only within what the asking allocator may still take (a reservation's limit)
            Idle idle = take(size, size + Math.min(size / 16, Math.max(0, accounting.getHeadroom())));
            if (idle != null) {
                if (idle.size > size) {
                    accounting.forceAllocate(idle.size - size); // charged for what it holds
                }
                return new Chunk(accounting, idle.address, idle.size);
            }
            BufferAllocator root = accounting.getRoot();
            freshFor(root.getLimit() - root.getAllocatedMemory());
        }
        return new Chunk(accounting, MemoryUtil.allocateMemory(size), size);
    }

    @Override
    public ArrowBuf empty() {
        return UnsafeAllocationManager.FACTORY.empty();
    }

    /** Bytes kept for reuse now. */
    public synchronized long idleBytes() {
        return idleBytes;
    }

    /** Requests served from kept memory so far. */
    public synchronized long reusedCount() {
        return reused;
    }

    /** Requests large enough to be kept that took fresh memory so far. */
    public synchronized long freshCount() {
        return fresh;
    }

    private synchronized void freshFor(long room) {
        fresh++;
        makeRoom(room);
    }

    /** Frees every idle chunk; memory released from now on is freed at once. */
    @Override
    public synchronized void close() {
        closed = true;
        makeRoom(0);
    }

    private synchronized Idle take(long size, long most) {
        Map.Entry<Long, Deque<Idle>> fit = idleBySize.ceilingEntry(size);
        if (fit == null || fit.getKey() > most) {
            return null;
        }
        Idle chunk = fit.getValue().pollLast(); // the most recently released: likeliest in cache
        if (fit.getValue().isEmpty()) {
            idleBySize.remove(fit.getKey());
        }
        idleOrder.remove(chunk);
        idleBytes -= chunk.size;
        reused++;
        return chunk;
    }

    private synchronized void giveBack(long address, long size, long headroom) {
        if (closed || size < MIN_RECYCLED_BYTES || size > maxIdleBytes || size > headroom - idleBytes) {
            MemoryUtil.freeMemory(address);
            return;
        }
        while (idleBytes + size > maxIdleBytes) {
            freeOldest();
        }
        Idle chunk = new Idle(address, size);
        idleBySize.computeIfAbsent(size, s -> new ArrayDeque<>()).addLast(chunk);
        idleOrder.add(chunk);
        idleBytes += size;
    }

    /** Frees idle chunks, oldest first, until at most {@code room} bytes are idle. */
    private synchronized void makeRoom(long room) {
        while (idleBytes > Math.max(0, room)) {
            freeOldest();
        }
    }

    /** The oldest idle chunk heads its size's queue too: chunks are taken from the tails. */
    private void freeOldest() {
        Iterator<Idle> oldest = idleOrder.iterator();
        Idle chunk = oldest.next();
        oldest.remove();
        Deque<Idle> same = idleBySize.get(chunk.size);
        same.pollFirst();
        if (same.isEmpty()) {
            idleBySize.remove(chunk.size);
        }
        idleBytes -= chunk.size;
        MemoryUtil.freeMemory(chunk.address);
    }

    /** Memory kept for reuse; compared by identity. */
    private static final class Idle {
        final long address;
        final long size;

        Idle(long address, long size) {
            this.address = address;
            this.size = size;
        }
    }

    /** One allocation: its memory goes back to the pool when Arrow releases it. */
    private final class Chunk extends AllocationManager {
        private final long address;
        private final long size;
        private final BufferAllocator root;

        Chunk(BufferAllocator accounting, long address, long size) {
            super(accounting);
            this.address = address;
            this.size = size;
            this.root = accounting.getRoot();
        }

        @Override
        public long getSize() {
            return size;
        }

        @Override
        protected long memoryAddress() {
            return address;
        }

        @Override
        protected void release0() {
            giveBack(address, size, root.getLimit() - root.getAllocatedMemory()); // already uncharged
        }
    }
}
