package io.walsink.flink.internal.memory;

import static io.walsink.flink.SinkOptions.MAX_OFF_HEAP_BYTES_PER_SUBTASK;
import static io.walsink.flink.SinkOptions.MAX_UNFLUSHED_BYTES;
import static io.walsink.flink.SinkOptions.MAX_UNFLUSHED_BYTES_PER_SUBTASK;
import static io.walsink.flink.SinkOptions.MEMTABLE_MAX_SIZE;
import static io.walsink.flink.SinkOptions.WAL_MAX_BUFFER_SIZE;

import io.walsink.annotation.Internal;
import io.walsink.shard.ShardWriterConfig;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * How much memory a writer subtask takes and how it is split: the sizing rule of
 * docs/configuration.md#memory, a pure function of the settings and of what the slot gives.
 *
 * <p>What the slot gives is the writer's share of the slot's managed memory (its fraction of the
 * OPERATOR use case, declared by {@code WalSink}) plus the slot's share of the task off-heap memory,
 * which Flink's default configuration sets to 0 and local execution to unlimited (1 TiB or more).
 *
 * <ul>
 *   <li>Unlimited (local execution, or a TaskManager whose configuration does not state its task
 *       off-heap size): the settings as given or defaulted, unchecked, as before managed memory.
 *   <li>Otherwise the Arrow cap is {@code sink.max-off-heap-bytes-per-subtask} if set, else the
 *       derived sum {@code sink.max-unflushed-bytes-per-subtask + sink.memtable.max-size + 2 x
 *       sink.wal.max-buffer-size} if the unflushed budget is set, else all the slot gives minus
 *       {@link #headroom the native headroom}. Unset sizes are derived from that cap in the
 *       defaults' ratios (memtable 8/73 of the cap, at most 128 MiB, at least 4 MiB; WAL buffer
 *       1/16 of the memtable, at most 8 MiB, at least 256 KiB; the unflushed budget the rest;
 *       per shard at most 512 MiB). The cap plus the headroom must fit what the slot gives.
 * </ul>
 *
 * The writer reserves {@code min(cap + headroom, its managed share)} from Flink's memory manager,
 * so Flink's accounting of the slot covers it; the rest, if any, is the task off-heap share.
 */
@Internal
public final class WriterMemory {
    static final String TASK_OFF_HEAP = TaskManagerOptions.TASK_OFF_HEAP_MEMORY.key();
    static final String MANAGED_SIZE = TaskManagerOptions.MANAGED_MEMORY_SIZE.key();
    static final String MANAGED_FRACTION = TaskManagerOptions.MANAGED_MEMORY_FRACTION.key();

    /** The smallest memtable derived from a small share: below it, SSTables get too small to be worth writing. */
    public static final long MIN_MEMTABLE = 4L << 20;

    static final long MIN_WAL_BUFFER = 256L << 10;
    /**
     * The task off-heap size from which a TaskManager's is taken as unlimited: what local execution
     * states (1 TiB since Flink 2.0, Long.MAX_VALUE bytes before). Sizes derived from it would let
     * memtables grow without bound; no TaskManager a resource manager starts states that much.
     */
    static final MemorySize LOCAL_EXECUTION_OFF_HEAP = MemorySize.parse("1t");
    /** lance-core's native memory while it writes SSTables (outside Arrow), at most this much. */
    static final long MAX_HEADROOM = 128L << 20;

    private WriterMemory() {}

    /**
     * What a slot gives a writer subtask.
     *
     * @param managed bytes of the slot's managed memory that are this writer's (0 if none)
     * @param offHeap the slot's share of the task off-heap memory; empty: unlimited or unknown
     * @param slots the TaskManager's slots, for messages
     * @param sortedInput whether Flink sorts the writer's input (batch execution), taking its managed memory
     */
    record Slot(long managed, OptionalLong offHeap, int slots, boolean sortedInput) {
        Slot(long managed, OptionalLong offHeap, int slots) {
            this(managed, offHeap, slots, false);
        }

        boolean unlimited() {
            return offHeap.isEmpty();
        }

        long total() {
            return managed + offHeap.orElseThrow();
        }
    }

    /**
     * The sizes a writer runs with and what it reserves.
     *
     * @param config a shard's settings with every memory size resolved
     * @param unflushedPerSubtask bytes the subtask's memtables hold before it flushes its largest
     * @param cap the subtask's Arrow allocator cap
     * @param reserve bytes to reserve from the slot's managed memory
     * @param derived whether the sizes were derived from the slot (none of them set)
     */
    record Plan(ShardWriterConfig config, long unflushedPerSubtask, long cap, long reserve, boolean derived) {}

    /** The slot's share of the task off-heap memory; empty when there is no limit to check against. */
    static OptionalLong offHeapPerSlot(Configuration taskManager) {
        if (!taskManager.contains(TaskManagerOptions.TASK_OFF_HEAP_MEMORY)) {
            return OptionalLong.empty(); // a TaskManager not started by Flink's scripts or resource managers
        }
        MemorySize total = taskManager.get(TaskManagerOptions.TASK_OFF_HEAP_MEMORY);
        if (total.compareTo(LOCAL_EXECUTION_OFF_HEAP) >= 0) {
            return OptionalLong.empty(); // local execution: unlimited
        }
        return OptionalLong.of(total.getBytes() / slots(taskManager));
    }

    static int slots(Configuration taskManager) {
        return Math.max(1, taskManager.get(TaskManagerOptions.NUM_TASK_SLOTS));
    }

    /** Room left beside an Arrow cap for lance-core's own native memory: an eighth of it, at most 128 MiB. */
    static long headroom(long cap) {
        return Math.min(cap / 8, MAX_HEADROOM);
    }

    /** The largest cap whose cap + headroom fits in {@code available}. */
    static long capFor(long available) {
        return available >= 9 * MAX_HEADROOM ? available - MAX_HEADROOM : available / 9 * 8;
    }

    /** The smallest share a writer runs with: a minimal memtable, its WAL buffers and an unflushed budget of one memtable. */
    static long minimalShare() {
        long cap = 2 * MIN_MEMTABLE + 2 * MIN_WAL_BUFFER;
        return cap + headroom(cap);
    }

    /**
     * @throws IllegalConfigurationException if the sizes do not fit what the slot gives (or each
     *     other), naming the settings and the amounts
     */
    static Plan plan(SinkSettings settings, Slot slot, String owner) {
        long walSet = settings.bytes(WAL_MAX_BUFFER_SIZE);
        long memtableSet = settings.bytes(MEMTABLE_MAX_SIZE);
        long perSubtaskSet = settings.bytes(MAX_UNFLUSHED_BYTES_PER_SUBTASK);
        if (slot.unlimited()) {
            long cap = settings.offHeapBytesPerSubtask();
            return new Plan(
                    settings.shardWriterConfig(),
                    perSubtaskSet,
                    cap,
                    Math.min(slot.managed(), cap + headroom(cap)),
                    false);
        }
        long available = slot.total();
        boolean unflushedSet = settings.isSet(MAX_UNFLUSHED_BYTES_PER_SUBTASK);
        long cap = settings.isSet(MAX_OFF_HEAP_BYTES_PER_SUBTASK) || unflushedSet
                ? settings.offHeapBytesPerSubtask() // as set, or the given budget with the given or default sizes
                : capFor(available);
        boolean derive = !unflushedSet; // sizes follow the cap unless the user sized the budget
        long memtable = settings.isSet(MEMTABLE_MAX_SIZE) || !derive
                ? memtableSet
                : clamp(cap / 73 * 8, MIN_MEMTABLE, ShardWriterConfig.DEFAULT_MEMTABLE_MAX_BYTES);
        long wal = settings.isSet(WAL_MAX_BUFFER_SIZE) || !derive
                ? walSet
                : Math.min(
                        memtable, clamp(memtable / 16, MIN_WAL_BUFFER, ShardWriterConfig.DEFAULT_WAL_MAX_BUFFER_BYTES));
        long perSubtask = unflushedSet ? perSubtaskSet : cap - memtable - 2 * wal;
        long perShard = settings.isSet(MAX_UNFLUSHED_BYTES)
                ? settings.bytes(MAX_UNFLUSHED_BYTES)
                : Math.max(memtable, Math.min(ShardWriterConfig.DEFAULT_MAX_UNFLUSHED_BYTES, perSubtask));
        long need = cap + headroom(cap);
        List<String> set = settings.memorySettingsSet();
        if (need > available || perSubtask < memtable) {
            throw new IllegalConfigurationException(
                    doesNotFit(settings, set, slot, owner, cap, memtable, wal, perSubtask));
        }
        if (cap <= perSubtask) {
            throw new IllegalConfigurationException("walsink writer of task " + owner + ": its slot gives it "
                    + human(available) + ", but " + MAX_OFF_HEAP_BYTES_PER_SUBTASK.key() + " (" + cap
                    + ") must exceed " + MAX_UNFLUSHED_BYTES_PER_SUBTASK.key() + " (" + perSubtask + ")");
        }
        ShardWriterConfig resolved;
        try {
            resolved = settings.shardWriterConfig(wal, memtable, perShard);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "walsink writer of task " + owner + ": its slot gives it " + human(available) + ", but "
                            + e.getMessage(),
                    e);
        }
        return new Plan(resolved, perSubtask, cap, Math.min(slot.managed(), need), set.isEmpty());
    }

    private static String doesNotFit(
            SinkSettings settings,
            List<String> set,
            Slot slot,
            String owner,
            long cap,
            long memtable,
            long wal,
            long perSubtask) {
        long available = slot.total();
        String what;
        long need;
        if (set.isEmpty()) {
            need = minimalShare();
            what = "needs at least " + human(need) + " for even a minimal memtable (" + human(MIN_MEMTABLE)
                    + ") with its WAL buffers and native headroom";
        } else {
            // the smallest Arrow cap these settings run with: an unflushed budget of at least one memtable
            long sum = Math.max(
                    settings.isSet(MAX_OFF_HEAP_BYTES_PER_SUBTASK) ? cap : 0,
                    Math.max(perSubtask, memtable) + memtable + 2 * wal);
            need = sum + headroom(sum);
            what = "needs " + human(need) + " with " + String.join(", ", set) + " as set (Arrow cap " + human(sum)
                    + " = sink.max-unflushed-bytes-per-subtask " + human(perSubtask) + " + sink.memtable.max-size "
                    + human(memtable) + " + 2 x sink.wal.max-buffer-size " + human(wal)
                    + ", or sink.max-off-heap-bytes-per-subtask, plus " + human(headroom(sum))
                    + " for lance-core's native memory)";
        }
        String remedy = set.isEmpty()
                ? "give the TaskManager more managed memory (" + MANAGED_SIZE + " or " + MANAGED_FRACTION
                        + "), fewer slots, or " + TASK_OFF_HEAP
                : "unset them to size the writer from what its slot gives, lower them, or give the TaskManager"
                        + " more managed memory (" + MANAGED_SIZE + " or " + MANAGED_FRACTION + ") or "
                        + TASK_OFF_HEAP + " (at least " + human(slot.slots() * Math.max(0, need - slot.managed()))
                        + " for " + slot.slots() + " slots without more managed memory)";
        if (slot.sortedInput()) {
            remedy += "; in batch execution Flink's input sorter takes this operator's managed memory: give the"
                    + " writer " + TASK_OFF_HEAP + " or set execution.sorted-inputs.enabled: false";
        }
        return "walsink writer of task " + owner + " " + what + " but its slot gives it " + human(available)
                + " (managed memory: " + human(slot.managed()) + ", its share of the slot's for operators; "
                + TASK_OFF_HEAP + ": " + human(slot.offHeap().orElseThrow()) + " per slot): " + remedy;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }

    /** Bytes and MiB rounded up, as a user would write them: "1224736768 bytes (1168m)". */
    public static String human(long bytes) {
        return bytes + " bytes (" + ((bytes + (1 << 20) - 1) >> 20) + "m)";
    }
}
