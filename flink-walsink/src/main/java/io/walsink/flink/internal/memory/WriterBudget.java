package io.walsink.flink.internal.memory;

import io.walsink.annotation.Internal;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.io.SsTableWriter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;

/**
 * A writer subtask's memory from open to close: what its slot gives it, the sizes planned from
 * that ({@link WriterMemory}), the managed memory reserved for them, and the capped Arrow
 * allocator its shards write into.
 */
@Internal
public final class WriterBudget {
    private final ManagedMemoryShare managed;
    private final WriterMemory.Slot slot;
    private final WriterMemory.Plan plan;
    private final BufferAllocator allocator;

    private WriterBudget(
            ManagedMemoryShare managed, WriterMemory.Slot slot, WriterMemory.Plan plan, BufferAllocator allocator) {
        this.managed = managed;
        this.slot = slot;
        this.plan = plan;
        this.allocator = allocator;
    }

    /**
     * Sizes the writer from its slot and reserves what it takes.
     *
     * @param reservationOwner the object the memory manager books the reservation under
     * @throws SuppressRestartsException if the requested sizes do not fit: every attempt would be
     *     sized the same way, so the job fails once, before anything is written
     */
    public static WriterBudget open(
            SinkSettings requested,
            Environment environment,
            StreamConfig operatorConfig,
            StreamingRuntimeContext context,
            Object reservationOwner,
            String task) {
        Configuration taskManager = environment.getTaskManagerInfo().getConfiguration();
        ManagedMemoryShare managed = new ManagedMemoryShare(environment.getMemoryManager(), reservationOwner, task);
        WriterMemory.Slot slot = managed.slot(operatorConfig, context, taskManager);
        WriterMemory.Plan plan;
        try {
            plan = WriterMemory.plan(requested, slot, task);
        } catch (IllegalConfigurationException e) {
            throw new SuppressRestartsException(e);
        }
        managed.reserve(plan.reserve());
        BufferAllocator allocator = SinkAllocators.open(plan.cap(), plan.unflushedPerSubtask(), task);
        return new WriterBudget(managed, slot, plan, allocator);
    }

    public ShardWriterConfig config() {
        return plan.config();
    }

    /** Bytes the subtask's memtables hold before it freezes and flushes its largest shards. */
    public long unflushedPerSubtask() {
        return plan.unflushedPerSubtask();
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    /**
     * Allocated bytes above which the writer flushes as if over its unflushed budget: the cap less
     * a full memtable's write reservation (the memtable and {@link SsTableWriter#RESERVATION_ALLOWANCE})
     * and one WAL buffer, so that when no SSTable write is in flight the cap still has room for that
     * reservation and for the row that passed the mark; never below the unflushed budget.
     */
    public long pressureBytes() {
        ShardWriterConfig c = config();
        return Math.max(
                plan.unflushedPerSubtask(),
                plan.cap() - c.memtableMaxBytes() - SsTableWriter.RESERVATION_ALLOWANCE - c.walMaxBufferBytes());
    }

    /** What a failed restore fails the task with: once for good if replaying ran out of the cap, as it would on every restart. */
    public RuntimeException restoreFailure(RuntimeException failure, String owner) {
        return SinkAllocators.capReached(failure)
                ? new SuppressRestartsException(SinkAllocators.explain(failure, allocator, owner))
                : failure;
    }

    /** Gives the managed-memory reservation back (the allocator is closed with the shards). */
    public void release() {
        managed.release();
    }

    /** The sizes and where they came from, for the writer's opening log line. */
    public String describe() {
        ShardWriterConfig c = config();
        return "off-heap cap " + WriterMemory.human(allocator.getLimit())
                + ": memtable " + WriterMemory.human(c.memtableMaxBytes())
                + ", unflushed per subtask " + WriterMemory.human(plan.unflushedPerSubtask())
                + ", WAL buffer " + WriterMemory.human(c.walMaxBufferBytes())
                + ", " + (plan.derived() ? "derived from the slot" : "as set or defaulted")
                + "; managed memory reserved " + WriterMemory.human(managed.reserved())
                + " of its share " + WriterMemory.human(slot.managed())
                + ", task off-heap per slot "
                + (slot.unlimited()
                        ? "unlimited"
                        : WriterMemory.human(slot.offHeap().getAsLong()));
    }
}
