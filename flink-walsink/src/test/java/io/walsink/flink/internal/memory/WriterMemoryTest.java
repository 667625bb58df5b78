package io.walsink.flink.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.shard.ShardWriterConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

/** The sizing rule: what a writer takes from what its slot gives, and when it refuses to start. */
class WriterMemoryTest {
    private static final long MIB = 1L << 20;
    private static final String OWNER = "w (1/1)#0";

    @Test
    void defaultsOnAStockTaskManagerTakeTheSlotsManagedMemory() {
        // Flink's default config.yaml: 1728m process, managed fraction 0.4 of the 1280m of Flink
        // memory = 512m, task off-heap 0, one slot; the writer is the slot's only operator using it.
        WriterMemory.Plan plan = WriterMemory.plan(SinkSettings.defaults(), slot(512 * MIB, 0, 1), OWNER);
        ShardWriterConfig c = plan.config();
        long cap = 512 * MIB / 9 * 8; // 455 MiB; an eighth of it (57 MiB) is left for lance-core
        assertThat(plan.cap()).isEqualTo(cap);
        assertThat(plan.derived()).isTrue();
        assertThat(plan.reserve()).isEqualTo(cap + cap / 8).isLessThanOrEqualTo(512 * MIB);
        assertThat(c.memtableMaxBytes()).isEqualTo(cap / 73 * 8); // 49.9 MiB, the defaults' 128/1168
        assertThat(c.walMaxBufferBytes()).isEqualTo(c.memtableMaxBytes() / 16);
        assertThat(plan.unflushedPerSubtask()).isEqualTo(cap - c.memtableMaxBytes() - 2 * c.walMaxBufferBytes());
        assertThat(c.maxUnflushedBytes()).isEqualTo(plan.unflushedPerSubtask()); // under 512 MiB
    }

    @Test
    void aShareOfTheDefaultsSizeGivesExactlyTheDefaults() {
        WriterMemory.Plan plan = WriterMemory.plan(SinkSettings.defaults(), slot((1168 + 128) * MIB, 0, 1), OWNER);
        ShardWriterConfig c = plan.config();
        assertThat(c.memtableMaxBytes()).isEqualTo(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_BYTES);
        assertThat(c.walMaxBufferBytes()).isEqualTo(ShardWriterConfig.DEFAULT_WAL_MAX_BUFFER_BYTES);
        assertThat(plan.unflushedPerSubtask()).isEqualTo(1024 * MIB);
        assertThat(c.maxUnflushedBytes()).isEqualTo(ShardWriterConfig.DEFAULT_MAX_UNFLUSHED_BYTES);
        assertThat(plan.cap()).isEqualTo(SinkSettings.defaults().offHeapBytesPerSubtask());
    }

    @Test
    void aLargeShareGrowsTheUnflushedBudgetNotTheMemtable() {
        WriterMemory.Plan plan = WriterMemory.plan(SinkSettings.defaults(), slot(4096 * MIB, 0, 1), OWNER);
        ShardWriterConfig c = plan.config();
        assertThat(plan.cap()).isEqualTo((4096 - 128) * MIB);
        assertThat(c.memtableMaxBytes()).isEqualTo(128 * MIB);
        assertThat(c.walMaxBufferBytes()).isEqualTo(8 * MIB);
        assertThat(plan.unflushedPerSubtask()).isEqualTo((4096 - 128 - 144) * MIB);
        assertThat(c.maxUnflushedBytes()).isEqualTo(512 * MIB);
        assertThat(plan.reserve()).isEqualTo(4096 * MIB);
    }

    @Test
    void taskOffHeapMemoryAddsToTheManagedShareAndIsNotReserved() {
        // the cluster test's configuration before managed memory: 2400m of task off-heap over 2 slots
        WriterMemory.Plan plan = WriterMemory.plan(SinkSettings.defaults(), slot(32 * MIB, 1200 * MIB, 2), OWNER);
        assertThat(plan.cap()).isEqualTo((1232 - 128) * MIB);
        assertThat(plan.reserve()).isEqualTo(32 * MIB);
    }

    @Test
    void theSmallestShareRunsWithAMinimalMemtableAndOneByteLessDoesNot() {
        long minimal = WriterMemory.minimalShare();
        WriterMemory.Plan plan = WriterMemory.plan(SinkSettings.defaults(), slot(minimal, 0, 2), OWNER);
        ShardWriterConfig c = plan.config();
        assertThat(c.memtableMaxBytes()).isEqualTo(WriterMemory.MIN_MEMTABLE);
        assertThat(c.walMaxBufferBytes()).isEqualTo(WriterMemory.MIN_WAL_BUFFER);
        assertThat(plan.unflushedPerSubtask()).isEqualTo(WriterMemory.MIN_MEMTABLE);

        assertThatThrownBy(() -> WriterMemory.plan(SinkSettings.defaults(), slot(minimal - 1, 0, 2), OWNER))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("walsink writer of task " + OWNER + " needs at least " + minimal + " bytes")
                .hasMessageContaining("minimal memtable (4194304 bytes (4m))")
                .hasMessageContaining("taskmanager.memory.managed.size or taskmanager.memory.managed.fraction")
                .hasMessageContaining("taskmanager.memory.task.off-heap.size");
    }

    @Test
    void explicitSizesThatDoNotFitFailNamingThemAndWhatIsNeeded() {
        SinkSettings budget = settings("sink.max-unflushed-bytes-per-subtask", "1gb");
        // 1024 + 128 + 16 = 1168 MiB of Arrow cap, + 128 MiB headroom, against 256 MiB per slot
        assertThatThrownBy(() -> WriterMemory.plan(budget, slot(256 * MIB, 0, 2), OWNER))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("needs 1358954496 bytes (1296m) with sink.max-unflushed-bytes-per-subtask as set")
                .hasMessageContaining("its slot gives it 268435456 bytes (256m)")
                .hasMessageContaining("(at least 2181038080 bytes (2080m) for 2 slots without more managed memory)");

        SinkSettings memtable = settings("sink.memtable.max-size", "128mb");
        // the memtable fits the cap derived from 256 MiB, but an unflushed budget of one memtable does not
        assertThatThrownBy(() -> WriterMemory.plan(memtable, slot(256 * MIB, 0, 1), OWNER))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("with sink.memtable.max-size as set");

        SinkSettings cap = settings(
                "sink.max-unflushed-bytes-per-subtask", "8mb",
                "sink.memtable.max-size", "4mb",
                "sink.wal.max-buffer-size", "1mb",
                "sink.max-off-heap-bytes-per-subtask", "300mb");
        assertThatThrownBy(() -> WriterMemory.plan(cap, slot(256 * MIB, 0, 1), OWNER))
                .hasMessageContaining("needs " + (300 * MIB + 300 * MIB / 8) + " bytes");
    }

    @Test
    void explicitSizesThatFitAreKeptAndTheRestDerivedOrDefaulted() {
        SinkSettings budget = settings("sink.max-unflushed-bytes-per-subtask", "256mb");
        WriterMemory.Plan plan = WriterMemory.plan(budget, slot(512 * MIB, 0, 1), OWNER);
        assertThat(plan.cap()).isEqualTo((256 + 128 + 16) * MIB); // the given budget's cap, as before
        assertThat(plan.reserve()).isEqualTo(450 * MIB);
        assertThat(plan.derived()).isFalse();
        assertThat(plan.unflushedPerSubtask()).isEqualTo(256 * MIB);
        assertThat(plan.config().memtableMaxBytes()).isEqualTo(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_BYTES);

        WriterMemory.Plan memtable =
                WriterMemory.plan(settings("sink.memtable.max-size", "16mb"), slot(512 * MIB, 0, 1), OWNER);
        assertThat(memtable.config().memtableMaxBytes()).isEqualTo(16 * MIB);
        assertThat(memtable.config().walMaxBufferBytes()).isEqualTo(1 * MIB);
        assertThat(memtable.cap()).isEqualTo(512 * MIB / 9 * 8);
    }

    @Test
    void localExecutionKeepsTheSettingsAndReservesWhatManagedMemoryThereIs() {
        WriterMemory.Plan plan = WriterMemory.plan(
                SinkSettings.defaults(), new WriterMemory.Slot(64 * MIB, OptionalLong.empty(), 2), OWNER);
        assertThat(plan.cap()).isEqualTo(1168 * MIB);
        assertThat(plan.config().memtableMaxBytes()).isEqualTo(128 * MIB);
        assertThat(plan.reserve()).isEqualTo(64 * MIB);
        assertThat(WriterMemory.plan(SinkSettings.defaults(), new WriterMemory.Slot(0, OptionalLong.empty(), 2), OWNER)
                        .reserve())
                .isZero();
    }

    @Test
    void theTaskOffHeapShareIsUnlimitedInLocalExecutionAndWhenUnstated() {
        Configuration unset = new Configuration();
        Configuration local = new Configuration();
        local.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.parse("1t")); // what a Flink 2 MiniCluster sets
        Configuration flink1Local = new Configuration();
        flink1Local.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.MAX_VALUE); // what Flink 1.x set
        Configuration stock = new Configuration();
        stock.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.parse("0b")); // what Flink's scripts pass
        stock.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        Configuration four = new Configuration();
        four.set(TaskManagerOptions.TASK_OFF_HEAP_MEMORY, MemorySize.parse("4g"));
        four.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
        assertThat(WriterMemory.offHeapPerSlot(unset)).isEmpty();
        assertThat(WriterMemory.offHeapPerSlot(local)).isEmpty();
        assertThat(WriterMemory.offHeapPerSlot(flink1Local)).isEmpty();
        assertThat(WriterMemory.offHeapPerSlot(stock)).hasValue(0);
        assertThat(WriterMemory.offHeapPerSlot(four)).hasValue(1L << 30);
    }

    /**
     * Random shares and random explicit settings: whatever the rule accepts stays within what the
     * slot gives and is a configuration the writer can run; with nothing set it accepts every
     * share from the minimal one up.
     */
    @Test
    void whatTheRuleAcceptsAlwaysFitsTheSlot() {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println(
                "whatTheRuleAcceptsAlwaysFitsTheSlot seed " + seed + " (rerun with -Dwalsink.test.seed=" + seed + ")");
        Random random = new Random(seed);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            long managed = random.nextBoolean() ? 0 : (long) (Math.pow(2, 20 + random.nextDouble() * 16));
            long offHeap = random.nextInt(4) == 0 ? (long) (Math.pow(2, 20 + random.nextDouble() * 14)) : 0;
            if (managed + offHeap == 0) {
                managed = MIB;
            }
            Map<String, String> given = new LinkedHashMap<>();
            long memtable = random.nextInt(3) == 0 ? MIB << random.nextInt(9) : -1;
            if (memtable > 0) {
                given.put("sink.memtable.max-size", memtable + "b");
            }
            if (random.nextInt(4) == 0) {
                long wal = Math.min(memtable > 0 ? memtable : 4 * MIB, (256L << 10) << random.nextInt(6));
                given.put("sink.wal.max-buffer-size", wal + "b");
            }
            if (random.nextInt(4) == 0) {
                given.put(
                        "sink.max-unflushed-bytes-per-subtask",
                        (Math.max(memtable, 4 * MIB) << random.nextInt(8)) + "b");
            }
            if (random.nextInt(6) == 0) {
                given.put("sink.max-unflushed-bytes", (Math.max(memtable, 128 * MIB) << random.nextInt(3)) + "b");
            }
            SinkSettings config;
            try {
                config = SinkSettings.from(Configuration.fromMap(given));
            } catch (IllegalArgumentException invalidAlone) {
                continue; // refused while the job is built, before any slot is known
            }
            WriterMemory.Slot slot = slot(managed, offHeap, 1 + random.nextInt(4));
            String context = "seed " + seed + " case " + i + ": " + config + " on " + slot;
            WriterMemory.Plan plan;
            try {
                plan = WriterMemory.plan(config, slot, OWNER);
            } catch (IllegalConfigurationException refused) {
                assertThat(given.isEmpty() && slot.total() >= WriterMemory.minimalShare())
                        .as("refused although nothing is set and the share is above the minimal: %s", context)
                        .isFalse();
                assertThat(refused.getMessage()).as(context).contains("its slot gives it " + slot.total());
                continue;
            }
            accepted++;
            ShardWriterConfig c = plan.config();
            long cap = plan.cap();
            assertThat(cap + WriterMemory.headroom(cap)).as(context).isLessThanOrEqualTo(slot.total());
            assertThat(plan.reserve()).as(context).isLessThanOrEqualTo(managed);
            assertThat(plan.reserve()).as(context).isEqualTo(Math.min(managed, cap + WriterMemory.headroom(cap)));
            assertThat(plan.unflushedPerSubtask()).as(context).isGreaterThanOrEqualTo(c.memtableMaxBytes());
            assertThat(c.maxUnflushedBytes()).as(context).isGreaterThanOrEqualTo(c.memtableMaxBytes());
            assertThat(c.walMaxBufferBytes()).as(context).isLessThanOrEqualTo(c.memtableMaxBytes());
            assertThat(plan.unflushedPerSubtask() + c.memtableMaxBytes() + 2 * c.walMaxBufferBytes())
                    .as(context)
                    .isLessThanOrEqualTo(cap);
            assertKept(given, "sink.memtable.max-size", c.memtableMaxBytes(), context);
            assertKept(given, "sink.wal.max-buffer-size", c.walMaxBufferBytes(), context);
            assertKept(given, "sink.max-unflushed-bytes-per-subtask", plan.unflushedPerSubtask(), context);
            assertKept(given, "sink.max-unflushed-bytes", c.maxUnflushedBytes(), context);
        }
        System.out.println(accepted + " of 20000 random cases accepted");
        assertThat(accepted).isGreaterThan(1_000);
    }

    private static void assertKept(Map<String, String> given, String key, long planned, String context) {
        if (given.containsKey(key)) {
            assertThat(planned + "b").as(context + ": " + key + " kept").isEqualTo(given.get(key));
        }
    }

    private static SinkSettings settings(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return SinkSettings.from(Configuration.fromMap(map));
    }

    private static WriterMemory.Slot slot(long managed, long offHeap, int slots) {
        return new WriterMemory.Slot(managed, OptionalLong.of(offHeap), slots);
    }
}
