package io.walsink.flink.internal;

import io.walsink.shard.OffHeapAllocators;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Arrow allocators of the writer subtasks: one per subtask, capped by
 * {@code sink.max-off-heap-bytes-per-subtask} as {@link WriterMemory} sizes it, and unpooled (Arrow's unsafe allocation manager:
 * a released buffer is freed at once, where Netty's pool would keep it for the classloader's
 * lifetime). Keeps count of the open ones so that tests and operators can see what is still held.
 */
final class SinkAllocators {
    private static final Logger LOG = LoggerFactory.getLogger(SinkAllocators.class);
    static final String SETTING = "sink.max-off-heap-bytes-per-subtask";

    private static final Set<BufferAllocator> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicLong LEAKED = new AtomicLong();
    /** Managed memory each open allocator's writer reserved, for {@link #closed()}. */
    private static final Map<BufferAllocator, Long> RESERVED = new ConcurrentHashMap<>();
    /** The last allocators closed, newest last: what tests check a writer's budget against. */
    private static final Deque<Usage> CLOSED = new ArrayDeque<>();

    private static final int CLOSED_KEPT = 64;

    /**
     * A closed allocator's figures.
     *
     * @param reservedManaged bytes its writer reserved from the slot's managed memory
     * @param peak the most it held at once
     */
    record Usage(String owner, long cap, long reservedManaged, long peak) {}

    private SinkAllocators() {}

    static BufferAllocator open(long cap, long reservedManaged) {
        BufferAllocator root = OffHeapAllocators.root(cap);
        OPEN.add(root);
        RESERVED.put(root, reservedManaged);
        return root;
    }

    /** The last allocators closed (at most 64), oldest first. */
    static List<Usage> closed() {
        synchronized (CLOSED) {
            return List.copyOf(CLOSED);
        }
    }

    /**
     * Closes {@code allocator}. Buffers still allocated (a bug: every owner closes its own) are
     * never freed by Arrow; they are logged and counted, and the allocator stays counted as open.
     */
    static void close(BufferAllocator allocator, String owner) {
        long held = allocator.getAllocatedMemory();
        if (held == 0) {
            Long reserved = RESERVED.remove(allocator);
            Usage usage = new Usage(
                    owner, allocator.getLimit(), reserved == null ? 0 : reserved, allocator.getPeakMemoryAllocation());
            allocator.close();
            OPEN.remove(allocator);
            synchronized (CLOSED) {
                CLOSED.addLast(usage);
                while (CLOSED.size() > CLOSED_KEPT) {
                    CLOSED.removeFirst();
                }
            }
            return;
        }
        LEAKED.addAndGet(held);
        LOG.error(
                "walsink writer {} closed with {} bytes of Arrow memory still allocated; they stay allocated: {}",
                owner,
                held,
                allocator.toVerboseString());
    }

    /** Allocators of writer subtasks in this classloader not closed yet (or leaking). */
    static int openCount() {
        return OPEN.size();
    }

    /** Bytes they hold. */
    static long allocatedBytes() {
        return OPEN.stream().mapToLong(BufferAllocator::getAllocatedMemory).sum();
    }

    /** Bytes left allocated by allocators closed with outstanding buffers. */
    static long leakedBytes() {
        return LEAKED.get();
    }

    /** Whether Arrow refused an allocation over the cap somewhere in {@code failure}'s causes. */
    static boolean capReached(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** {@code failure}, explained when it is the cap: which setting to raise, and what else to change. */
    static Exception explain(Exception failure, BufferAllocator allocator, String owner) {
        if (!capReached(failure)) {
            return failure;
        }
        return new FlinkRuntimeException(
                "walsink writer of task " + owner + " reached its off-heap memory cap " + SETTING + " ("
                        + allocator.getLimit() + " bytes, " + allocator.getAllocatedMemory()
                        + " allocated): lower sink.max-unflushed-bytes-per-subtask so that the writer flushes"
                        + " earlier, or raise the cap within what the slot gives (docs/operations.md#memory-sizing)",
                failure);
    }
}
