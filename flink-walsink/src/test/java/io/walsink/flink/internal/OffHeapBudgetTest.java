package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.shard.ShardWriterConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;

/** The cap against the slot's share of task off-heap memory: which limits count, and the message. */
class OffHeapBudgetTest {

    @Test
    void theDefaultCapIsTheSubtaskBudgetPlusAMemtableAndTwoWalBuffers() {
        ShardWriterConfig config = ShardWriterConfig.defaults();
        assertThat(config.offHeapBytesPerSubtask()).isEqualTo((1024L + 128 + 2 * 8) << 20);
        assertThat(config.offHeapBytesPerSubtaskExplicit()).isFalse();
        ShardWriterConfig explicit =
                config.toBuilder().maxOffHeapBytesPerSubtask(2L << 30).build();
        assertThat(explicit.offHeapBytesPerSubtask()).isEqualTo(2L << 30);
        assertThatThrownBy(() ->
                        config.toBuilder().maxOffHeapBytesPerSubtask(1L << 30).build())
                .hasMessageContaining("sink.max-off-heap-bytes-per-subtask (1073741824) must exceed"
                        + " sink.max-unflushed-bytes-per-subtask");
    }

    @Test
    void localExecutionAndUnknownConfigurationsAreNotChecked() {
        Configuration unset = new Configuration();
        Configuration local = new Configuration();
        local.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.MAX_VALUE); // what a MiniCluster sets
        assertThat(OffHeapBudget.perSlot(unset)).isEmpty();
        assertThat(OffHeapBudget.perSlot(local)).isEmpty();
        assertThatCode(() -> OffHeapBudget.check(ShardWriterConfig.defaults(), local, "w (1/1)"))
                .doesNotThrowAnyException();
    }

    @Test
    void theSlotsShareIsTheTaskOffHeapMemoryOverTheSlots() {
        Configuration tm = taskManager("4g", 4);
        assertThat(OffHeapBudget.perSlot(tm)).hasValue(1L << 30);
        ShardWriterConfig fits = ShardWriterConfig.builder()
                .maxUnflushedBytesPerSubtask(512L << 20)
                .maxOffHeapBytesPerSubtask(1L << 30)
                .build();
        assertThatCode(() -> OffHeapBudget.check(fits, tm, "w (1/4)")).doesNotThrowAnyException();
    }

    @Test
    void aCapOverTheSlotsShareFailsForGoodNamingTheOptionAndTheAmount() {
        // Flink's default task off-heap memory is 0: the first job after the defaults fails this way.
        Configuration tm = taskManager("0b", 2);
        assertThatThrownBy(() -> OffHeapBudget.check(ShardWriterConfig.defaults(), tm, "w (1/2)"))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("needs 1224736768 bytes (1168m) of off-heap memory")
                .hasMessageContaining("derived: sink.max-unflushed-bytes-per-subtask")
                .hasMessageContaining("set taskmanager.memory.task.off-heap.size to at least 2449473536 bytes (2336m)");
    }

    private static Configuration taskManager(String offHeap, int slots) {
        Configuration tm = new Configuration();
        tm.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.parse(offHeap));
        tm.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        return tm;
    }
}
