package io.walsink.flink.internal;

import io.walsink.shard.ShardWriterConfig;
import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a writer subtask's memory cap against its slot's share of the TaskManager's task
 * off-heap memory before anything is allocated. A cap the slot cannot hold fails the job once, for
 * good: every restart would run out the same way, and an exhausted TaskManager fails other jobs too.
 */
final class OffHeapBudget {
    private static final Logger LOG = LoggerFactory.getLogger(OffHeapBudget.class);
    static final String TASK_OFF_HEAP = TaskManagerOptions.TASK_OFF_HEAP_MEMORY.key();

    private OffHeapBudget() {}

    /**
     * The slot's share of the task off-heap memory; empty when there is no limit to check against:
     * local execution (a MiniCluster sets it to the maximum, meaning unlimited), or a TaskManager
     * configuration that does not say (one not started by Flink's scripts or resource managers).
     */
    static OptionalLong perSlot(Configuration taskManager) {
        if (!taskManager.contains(TaskManagerOptions.TASK_OFF_HEAP_MEMORY)) {
            return OptionalLong.empty();
        }
        MemorySize total = taskManager.get(TaskManagerOptions.TASK_OFF_HEAP_MEMORY);
        if (total.equals(MemorySize.MAX_VALUE)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(total.getBytes() / slots(taskManager));
    }

    /** @throws SuppressRestartsException (with an {@link IllegalConfigurationException}) if the cap does not fit */
    static void check(ShardWriterConfig config, Configuration taskManager, String owner) {
        long cap = config.offHeapBytesPerSubtask();
        OptionalLong perSlot = perSlot(taskManager);
        if (perSlot.isEmpty()) {
            LOG.info(
                    "walsink writer {}: off-heap memory cap {}; {} is {}, not checked",
                    owner,
                    human(cap),
                    TASK_OFF_HEAP,
                    taskManager.contains(TaskManagerOptions.TASK_OFF_HEAP_MEMORY) ? "unlimited" : "not set");
            return;
        }
        if (cap <= perSlot.getAsLong()) {
            return;
        }
        int slots = slots(taskManager);
        String source = config.offHeapBytesPerSubtaskExplicit()
                ? SinkAllocators.SETTING
                : SinkAllocators.SETTING + ", derived: sink.max-unflushed-bytes-per-subtask + sink.memtable.max-size"
                        + " + 2 x sink.wal.max-buffer-size";
        throw new SuppressRestartsException(new IllegalConfigurationException("walsink writer of task " + owner
                + " needs "
                + human(cap) + " of off-heap memory (" + source + ") but its slot's share of " + TASK_OFF_HEAP
                + " is " + human(perSlot.getAsLong()) + " ("
                + human(taskManager.get(TaskManagerOptions.TASK_OFF_HEAP_MEMORY).getBytes())
                + " over " + slots + " slots): set " + TASK_OFF_HEAP + " to at least " + human((long) slots * cap)
                + " (plus what other operators in the slots use), or lower " + SinkAllocators.SETTING
                + " or sink.max-unflushed-bytes-per-subtask"));
    }

    private static int slots(Configuration taskManager) {
        return Math.max(1, taskManager.get(TaskManagerOptions.NUM_TASK_SLOTS));
    }

    /** Bytes and MiB rounded up, as a user would write them: "1224736768 bytes (1168m)". */
    static String human(long bytes) {
        return bytes + " bytes (" + ((bytes + (1 << 20) - 1) >> 20) + "m)";
    }
}
