package io.walsink.flink.internal;

import io.walsink.shard.OffHeapAllocators;
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
 * {@code sink.max-off-heap-bytes-per-subtask}, and unpooled (Arrow's unsafe allocation manager:
 * a released buffer is freed at once, where Netty's pool would keep it for the classloader's
 * lifetime). Keeps count of the open ones so that tests and operators can see what is still held.
 */
final class SinkAllocators {
    private static final Logger LOG = LoggerFactory.getLogger(SinkAllocators.class);
    static final String SETTING = "sink.max-off-heap-bytes-per-subtask";

    private static final Set<BufferAllocator> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicLong LEAKED = new AtomicLong();

    private SinkAllocators() {}

    static BufferAllocator open(long cap) {
        BufferAllocator root = OffHeapAllocators.root(cap);
        OPEN.add(root);
        return root;
    }

    /**
     * Closes {@code allocator}. Buffers still allocated (a bug: every owner closes its own) are
     * never freed by Arrow; they are logged and counted, and the allocator stays counted as open.
     */
    static void close(BufferAllocator allocator, String owner) {
        long held = allocator.getAllocatedMemory();
        if (held == 0) {
            allocator.close();
            OPEN.remove(allocator);
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
                        + " allocated): raise it (and taskmanager.memory.task.off-heap.size with it), or lower"
                        + " sink.max-unflushed-bytes-per-subtask so that the writer flushes earlier",
                failure);
    }
}
