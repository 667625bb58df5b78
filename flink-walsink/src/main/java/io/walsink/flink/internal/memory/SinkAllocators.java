package io.walsink.flink.internal.memory;

import io.walsink.annotation.Internal;
import io.walsink.shard.OffHeapAllocators;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Arrow allocators of the writer subtasks: one per subtask, capped by
 * {@code sink.max-off-heap-bytes-per-subtask} as {@link WriterMemory} sizes it, keeping released
 * memory for reuse within the cap up to a bound and freeing it when closed ({@link OffHeapAllocators}:
 * not Netty's pool, which would keep it for the classloader's lifetime).
 *
 * <p>Each allocator's life is logged under this class, and that log is the only record kept: its
 * opening (DEBUG), its closing with the most it held at once against its cap (INFO: what an
 * operator sizes the cap by), or its buffers still allocated at close (ERROR: a bug, and memory
 * the TaskManager does not get back). Tests check the same lines to see that every allocator
 * opened was closed with nothing outstanding.
 */
@Internal
public final class SinkAllocators {
    private static final Logger LOG = LoggerFactory.getLogger(SinkAllocators.class);
    static final String SETTING = "sink.max-off-heap-bytes-per-subtask";

    private SinkAllocators() {}

    /** @param recycledBytes released memory kept for reuse at most (a memtable's batches for the next one's) */
    public static BufferAllocator open(long cap, long recycledBytes, String owner) {
        BufferAllocator root = OffHeapAllocators.root(cap, recycledBytes);
        LOG.debug("walsink {}: Arrow allocator opened with a cap of {} bytes", owner, cap);
        return root;
    }

    /**
     * Closes {@code allocator}. Buffers still allocated (a bug: every owner closes its own) are
     * never freed by Arrow; they are logged, and the allocator is left open.
     */
    public static void close(BufferAllocator allocator, String owner) {
        long held = allocator.getAllocatedMemory();
        if (held == 0) {
            long peak = allocator.getPeakMemoryAllocation();
            long cap = allocator.getLimit();
            String reuse = allocator instanceof OffHeapAllocators.Recycling recycling
                    ? "; " + recycling.recycled().reusedCount() + " allocations took released memory, "
                            + recycling.recycled().freshCount() + " fresh memory"
                    : "";
            allocator.close();
            LOG.info(
                    "walsink {}: Arrow allocator closed; it held at most {} bytes at once, of its cap of {} bytes{}",
                    owner,
                    peak,
                    cap,
                    reuse);
            return;
        }
        if (allocator instanceof OffHeapAllocators.Recycling recycling) {
            recycling.recycled().close();
        }
        LOG.error(
                "walsink writer {} closed with {} bytes of Arrow memory still allocated; they stay allocated: {}",
                owner,
                held,
                allocator.toVerboseString());
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
    public static Exception explain(Exception failure, BufferAllocator allocator, String owner) {
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
