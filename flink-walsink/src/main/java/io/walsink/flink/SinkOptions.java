package io.walsink.flink;

import io.walsink.annotation.PublicEvolving;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.driver.ShardDrivers;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The writer's settings, declared once: SQL tables take them as {@code WITH} options under these
 * names, {@link WalSinkBuilder} sets them by its methods or by {@link
 * WalSinkBuilder#options(org.apache.flink.configuration.ReadableConfig)}, and the running sink
 * reads them from there. docs/configuration.md is rendered from these declarations.
 *
 * <p>Why the defaults: a flush every 100 ms, at most 20 WAL appends a second a subtask (at 100 a
 * second, 256 buckets on 2 subtasks used 1.6x the CPU of 20); max age 0, so every checkpoint
 * publishes every shard's rows and readers of published data see a row within about a checkpoint
 * interval plus an SSTable write; compaction on, every 10 s at most, so the SSTables max age 0
 * publishes are merged as they come; collection on with a retention of 1 h, above the age of the
 * one checkpoint Flink retains by default (at most its 10 min timeout), with room for savepoints
 * restored within the hour; consumer records kept a day.
 */
@PublicEvolving
public final class SinkOptions {
    private SinkOptions() {}

    private static final String UNSET_DERIVED = " Unset: derived from the memory the writer's slot gives it"
            + " (docs/configuration.md#memory); the default applies in local execution.";

    public static final ConfigOption<Duration> FLUSH_INTERVAL = ConfigOptions.key("sink.flush-interval")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_FLUSH_INTERVAL)
            .withDescription("How often a shard with pending rows appends them to its WAL, at most (see"
                    + " 'sink.wal.max-appends-per-second' for subtasks with many shards); must be positive.");

    public static final ConfigOption<Integer> WAL_MAX_APPENDS_PER_SECOND = ConfigOptions.key(
                    "sink.wal.max-appends-per-second")
            .intType()
            .defaultValue(ShardDrivers.DEFAULT_TICK_APPENDS_PER_SECOND)
            .withDescription("The most WAL appends a second the flush ticks of one writer subtask start, over all"
                    + " its shards: a subtask holding more shards than this allows at 'sink.flush-interval' appends"
                    + " each shard every (shards / this) seconds instead, so that its PUTs stay bounded whatever the"
                    + " bucket count. Appends for a full WAL buffer, a frozen memtable or a checkpoint are not held"
                    + " back; must be positive.");

    public static final ConfigOption<MemorySize> WAL_MAX_BUFFER_SIZE = ConfigOptions.key("sink.wal.max-buffer-size")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_WAL_MAX_BUFFER_BYTES))
            .withDescription("Pending bytes of a shard that trigger a WAL append before the next tick; at most"
                    + " 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<MemorySize> MEMTABLE_MAX_SIZE = ConfigOptions.key("sink.memtable.max-size")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_BYTES))
            .withDescription("Memtable size at which it is frozen and written as an SSTable." + UNSET_DERIVED);

    public static final ConfigOption<Long> MEMTABLE_MAX_ROWS = ConfigOptions.key("sink.memtable.max-rows")
            .longType()
            .defaultValue(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS)
            .withDescription("Memtable row count at which it is frozen and written as an SSTable.");

    public static final ConfigOption<MemorySize> MAX_UNFLUSHED_BYTES = ConfigOptions.key("sink.max-unflushed-bytes")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_MAX_UNFLUSHED_BYTES))
            .withDescription("Memory per shard held in memtables not yet in SSTables above which the writer"
                    + " backpressures; at least 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<Duration> MEMTABLE_MAX_AGE = ConfigOptions.key("sink.memtable.max-age")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withDescription("At a checkpoint, memtables holding rows older than this are written as SSTables so"
                    + " the checkpoint publishes them: rows are visible to readers of published data within about"
                    + " this age plus one checkpoint interval. 0 publishes everything at every checkpoint (one"
                    + " SSTable per shard per checkpoint).");

    public static final ConfigOption<Integer> MEMTABLE_MAX_AGED_PER_CHECKPOINT = ConfigOptions.key(
                    "sink.memtable.max-aged-per-checkpoint")
            .intType()
            .defaultValue(32)
            .withDescription("The most memtables one writer subtask writes as SSTables at a checkpoint because"
                    + " of 'sink.memtable.max-age', oldest rows first; the others wait for the next checkpoints. A"
                    + " subtask of n shards with rows then publishes each within ceil(n / this) checkpoints (logged"
                    + " when the writer opens), and writes, and compaction merges, at most this many such SSTables"
                    + " per checkpoint. Memtables that fill up are written regardless; must be positive.");

    public static final ConfigOption<Boolean> COMPACTION_ENABLED = ConfigOptions.key("sink.compaction.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("One writer subtask merges published SSTables into the Lance base table after completed"
                    + " checkpoints, without blocking the writers; readers that know nothing of MemWAL then see the"
                    + " rows, and reads merge fewer SSTables.");

    public static final ConfigOption<Duration> COMPACTION_KEEP_MERGED_FOR = ConfigOptions.key(
                    "sink.compaction.keep-merged-for")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_KEEP_MERGED_FOR)
            .withDescription("How long a shard's manifest keeps listing an SSTable after its writer saw it merged"
                    + " into the base table. Readers that open the base table before they read the shard manifests"
                    + " (LanceDB's default read, and a LanceDB table handle kept open) see every row as long as"
                    + " their read, or their handle's age, stays below this; 0 drops merged SSTables at the"
                    + " writer's next manifest update. Each second adds about one listed SSTable per shard at one"
                    + " checkpoint a second.");

    public static final ConfigOption<Boolean> GC_ENABLED = ConfigOptions.key("sink.gc.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("One writer subtask removes WAL entries, manifest versions, SSTable folders and records"
                    + " that no live manifest and no checkpoint younger than 'sink.gc.retention' can need.");

    public static final ConfigOption<Duration> GC_RETENTION = ConfigOptions.key("sink.gc.retention")
            .durationType()
            .defaultValue(Duration.ofHours(1))
            .withDescription("How long garbage collection keeps history: restoring a checkpoint or savepoint older"
                    + " than this fails, naming the retention, and so does a bounded scan (SELECT) of the table"
                    + " that runs longer than this, restarts included.");

    public static final ConfigOption<Duration> GC_CONSUMER_EXPIRATION = ConfigOptions.key("sink.gc.consumer-expiration")
            .durationType()
            .defaultValue(GarbageCollector.DEFAULT_CONSUMER_EXPIRATION)
            .withDescription("How long garbage collection keeps, even past 'sink.gc.retention', what a continuous"
                    + " read with a 'scan.consumer-id' still needs, counted from the read's last completed"
                    + " checkpoint; an older consumer record is ignored and removed, and the read fails once"
                    + " what it needs is gone. Must be positive.");

    public static final ConfigOption<Duration> MAINTENANCE_INTERVAL = ConfigOptions.key("sink.maintenance.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("At most one maintenance run (compaction, then garbage collection) starts per this"
                    + " interval, after a completed checkpoint. A compaction run starts no generation's merge"
                    + " after this long (at least 10 s); the rest waits for the next run.");

    public static final ConfigOption<MemorySize> MAX_UNFLUSHED_BYTES_PER_SUBTASK = ConfigOptions.key(
                    "sink.max-unflushed-bytes-per-subtask")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(1024))
            .withDescription("The same summed over the shards of one writer subtask; above it the writer freezes"
                    + " and flushes its largest shards first. At least 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<MemorySize> MAX_OFF_HEAP_BYTES_PER_SUBTASK = ConfigOptions.key(
                    "sink.max-off-heap-bytes-per-subtask")
            .memoryType()
            .noDefaultValue()
            .withDescription("Cap of a writer subtask's Arrow memory (memtables, SSTable writes, replay), taken"
                    + " from the slot's managed memory (and task off-heap memory, if any) and checked at start"
                    + " against what the slot gives. Unset: what the slot gives less headroom for lance-core's"
                    + " native memory, or 'sink.max-unflushed-bytes-per-subtask' + 'sink.memtable.max-size' + 2 ×"
                    + " 'sink.wal.max-buffer-size' when the unflushed budget is set or in local execution (1168"
                    + " MiB with the defaults). Must exceed 'sink.max-unflushed-bytes-per-subtask'.");

    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("sink.parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("Parallelism of the shard writer; the job's default when unset.");

    public static final ConfigOption<Integer> IO_THREADS = ConfigOptions.key("sink.io-threads")
            .intType()
            .defaultValue(4)
            .withDescription(
                    "Object-store I/O threads per writer subtask; also how many shards a subtask restores at once after a failover.");

    public static final ConfigOption<Boolean> ADD_COLUMNS = ConfigOptions.key("sink.add-columns")
            .booleanType()
            .defaultValue(false)
            .withDescription("Columns the sink's rows declare and the table lacks are added to the table (nullable, at"
                    + " the end; published generations are merged first) when the job is built, before it writes;"
                    + " rows written before read them as null. Off: such a sink fails naming the column.");

    public static final ConfigOption<String> BUCKET_COLUMN = ConfigOptions.key("sink.bucket-column")
            .stringType()
            .noDefaultValue()
            .withDescription("When the sink creates the table: the column whose Lance bucket picks a row's shard (a key"
                    + " column of a keyed table, by default the first; any top-level primitive column of a table"
                    + " without a primary key, whose rows otherwise go round-robin over the shards). Ignored for an"
                    + " existing table.");

    /** In the order docs/configuration.md lists them. */
    public static List<ConfigOption<?>> all() {
        return List.of(
                FLUSH_INTERVAL,
                WAL_MAX_APPENDS_PER_SECOND,
                WAL_MAX_BUFFER_SIZE,
                MEMTABLE_MAX_SIZE,
                MEMTABLE_MAX_ROWS,
                MEMTABLE_MAX_AGE,
                MEMTABLE_MAX_AGED_PER_CHECKPOINT,
                COMPACTION_ENABLED,
                COMPACTION_KEEP_MERGED_FOR,
                GC_ENABLED,
                GC_RETENTION,
                GC_CONSUMER_EXPIRATION,
                MAINTENANCE_INTERVAL,
                MAX_UNFLUSHED_BYTES,
                MAX_UNFLUSHED_BYTES_PER_SUBTASK,
                MAX_OFF_HEAP_BYTES_PER_SUBTASK,
                PARALLELISM,
                IO_THREADS,
                ADD_COLUMNS,
                BUCKET_COLUMN);
    }
}
