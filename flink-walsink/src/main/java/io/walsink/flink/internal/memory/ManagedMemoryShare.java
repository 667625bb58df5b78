package io.walsink.flink.internal.memory;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.MemoryReservationException;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * A writer's share of its slot's managed memory: what the slot gives it, and the reservation it
 * holds in the slot's memory manager from open to close (bookkeeping only: Arrow allocates the
 * memory itself).
 */
final class ManagedMemoryShare {
    private final MemoryManager memoryManager;
    private final Object owner;
    private final String task;
    private long reserved;

    ManagedMemoryShare(MemoryManager memoryManager, Object owner, String task) {
        this.memoryManager = memoryManager;
        this.owner = owner;
        this.task = task;
    }

    /**
     * What the slot gives the writer: its fraction of the slot's managed memory for operators
     * (declared by {@code WalSink}), and the slot's share of the task off-heap memory. In batch
     * execution with sorted inputs, Flink's input sorter takes the operator's fraction: the writer
     * then has none of it.
     */
    WriterMemory.Slot slot(StreamConfig streamConfig, StreamingRuntimeContext context, Configuration taskManager) {
        ClassLoader classLoader = context.getUserCodeClassLoader();
        StreamConfig.InputConfig[] inputs = streamConfig.getInputs(classLoader);
        boolean sorted = false;
        for (StreamConfig.InputConfig input : inputs == null ? new StreamConfig.InputConfig[0] : inputs) {
            sorted |= StreamConfig.requiresSorting(input);
        }
        long managed = 0;
        if (!sorted) {
            double fraction = streamConfig.getManagedMemoryFractionOperatorUseCaseOfSlot(
                    ManagedMemoryUseCase.OPERATOR, context.getJobConfiguration(), taskManager, classLoader);
            managed = fraction > 0 ? memoryManager.computeMemorySize(fraction) : 0;
        }
        return new WriterMemory.Slot(
                managed, WriterMemory.offHeapPerSlot(taskManager), WriterMemory.slots(taskManager), sorted);
    }

    /** Takes {@code bytes} from the slot's managed memory. */
    void reserve(long bytes) {
        if (bytes <= 0) {
            return;
        }
        try {
            memoryManager.reserveMemory(owner, bytes);
        } catch (MemoryReservationException e) {
            throw new FlinkRuntimeException(
                    "walsink writer of task " + task + " could not reserve its " + WriterMemory.human(bytes)
                            + " of managed memory: another consumer in the slot holds more than its share",
                    e);
        }
        reserved = bytes;
    }

    long reserved() {
        return reserved;
    }

    /** Gives the reservation back; a shut-down memory manager has freed it all already. */
    void release() {
        if (reserved > 0 && !memoryManager.isShutdown()) {
            memoryManager.releaseMemory(owner, reserved);
        }
        reserved = 0;
    }
}
