package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.shard.memtable.Memtable;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The writer settings: limits and timings of each shard writer and the memory budget of a writer
 * subtask. The one place these settings are declared, defaulted and validated; the DataStream
 * builder and the SQL options both build one. Validated as a whole before anything is written: a
 * budget that can never be met would otherwise fail only at the first large memtable.
 */
@Internal
public final class ShardWriterConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);
    public static final long DEFAULT_WAL_MAX_BUFFER_BYTES = 8L << 20;
    /**
     * Two shards a subtask (4 buckets at parallelism 2) keep the 100 ms default interval; 128 tick
     * every 6.4 s. Each append costs a PUT and, on the writing thread, a sealed batch: at 100 a
     * second, 256 buckets on 2 subtasks used 1.6x the CPU of 20 (docs/benchmarks.md).
     */
    public static final int DEFAULT_WAL_MAX_APPENDS_PER_SECOND = 20;

    public static final long DEFAULT_MEMTABLE_MAX_BYTES = 128L << 20;
    public static final long DEFAULT_MEMTABLE_MAX_ROWS = 1_000_000;
    public static final int DEFAULT_MEMTABLE_MAX_BATCHES = 4_096;
    public static final int DEFAULT_BATCH_MAX_ROWS = Memtable.DEFAULT_BATCH_MAX_ROWS;
    public static final long DEFAULT_MAX_UNFLUSHED_BYTES = 512L << 20;
    public static final long DEFAULT_MAX_UNFLUSHED_BYTES_PER_SUBTASK = 1L << 30;
    /**
     * Every checkpoint publishes every shard's rows: readers of published data see a row within
     * about one checkpoint interval plus an SSTable write (docs/configuration.md, "Defaults and what
     * they cost").
     */
    public static final Duration DEFAULT_MEMTABLE_MAX_AGE = Duration.ZERO;
    /** Compaction on: the SSTables max age 0 publishes are merged into the base table as they come. */
    public static final boolean DEFAULT_COMPACTION = true;
    /** Short enough that compaction keeps each shard's SSTable list short at max age 0. */
    public static final Duration DEFAULT_MAINTENANCE_INTERVAL = Duration.ofSeconds(10);
    /**
     * Longer than a LanceDB read takes between opening the base table and reading the shard
     * manifests, even on a loaded machine (seconds); each second keeps about one more SSTable per
     * shard listed at one checkpoint a second.
     */
    public static final Duration DEFAULT_KEEP_MERGED_FOR = Duration.ofSeconds(10);
    /** Collection on: what compaction merged, and the WAL it covers, is removed after the retention. */
    public static final boolean DEFAULT_GARBAGE_COLLECTION = true;
    /**
     * Above the age of the one checkpoint Flink retains by default when a collection runs (at most
     * its checkpoint timeout, 10 min by default), with room for a few more retained checkpoints and
     * for savepoints restored within the hour.
     */
    public static final Duration DEFAULT_GC_RETENTION = Duration.ofHours(1);

    public static final Duration DEFAULT_GC_CONSUMER_EXPIRATION = Duration.ofDays(1);

    /**
     * The settings that size a writer subtask's memory. Those a user did not set are derived, when
     * the writer starts, from the memory its slot gives it (docs/configuration.md#memory); those set
     * are checked against it.
     */
    public enum MemorySetting {
        WAL_BUFFER("sink.wal.max-buffer-size"),
        MEMTABLE("sink.memtable.max-size"),
        UNFLUSHED("sink.max-unflushed-bytes"),
        UNFLUSHED_PER_SUBTASK("sink.max-unflushed-bytes-per-subtask"),
        OFF_HEAP("sink.max-off-heap-bytes-per-subtask");

        private final String key;

        MemorySetting(String key) {
            this.key = key;
        }

        /** The SQL option's name. */
        public String key() {
            return key;
        }
    }

    private final Duration flushInterval;
    private final long walMaxBufferBytes;
    private final int walMaxAppendsPerSecond;
    private final long memtableMaxBytes;
    private final long memtableMaxRows;
    private final int memtableMaxBatches;
    private final int batchMaxRows;
    private final long maxUnflushedBytes;
    private final long maxUnflushedBytesPerSubtask;
    /** 0: derived from the other budgets ({@link #offHeapBytesPerSubtask()}). */
    private final long maxOffHeapBytesPerSubtask;

    private final Duration memtableMaxAge;
    private final boolean compaction;
    private final Duration maintenanceInterval;
    private final Duration keepMergedFor;
    private final boolean garbageCollection;
    private final Duration gcRetention;
    private final Duration gcConsumerExpiration;
    /** The memory settings given explicitly (builder calls, SQL options present in the table's WITH). */
    private final EnumSet<MemorySetting> explicitMemory;

    private ShardWriterConfig(Builder b) {
        this.flushInterval = b.flushInterval;
        this.walMaxBufferBytes = b.walMaxBufferBytes;
        this.walMaxAppendsPerSecond = b.walMaxAppendsPerSecond;
        this.memtableMaxBytes = b.memtableMaxBytes;
        this.memtableMaxRows = b.memtableMaxRows;
        this.memtableMaxBatches = b.memtableMaxBatches;
        this.batchMaxRows = b.batchMaxRows;
        this.maxUnflushedBytes = b.maxUnflushedBytes;
        this.maxUnflushedBytesPerSubtask = b.maxUnflushedBytesPerSubtask;
        this.maxOffHeapBytesPerSubtask = b.maxOffHeapBytesPerSubtask;
        this.memtableMaxAge = b.memtableMaxAge;
        this.compaction = b.compaction;
        this.maintenanceInterval = b.maintenanceInterval;
        this.keepMergedFor = b.keepMergedFor;
        this.garbageCollection = b.garbageCollection;
        this.gcRetention = b.gcRetention;
        this.gcConsumerExpiration = b.gcConsumerExpiration;
        this.explicitMemory = EnumSet.copyOf(b.explicitMemory);
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        Builder b = builder()
                .flushInterval(flushInterval)
                .walMaxBufferBytes(walMaxBufferBytes)
                .walMaxAppendsPerSecond(walMaxAppendsPerSecond)
                .memtableMaxBytes(memtableMaxBytes)
                .memtableMaxRows(memtableMaxRows)
                .memtableMaxBatches(memtableMaxBatches)
                .batchMaxRows(batchMaxRows)
                .maxUnflushedBytes(maxUnflushedBytes)
                .maxUnflushedBytesPerSubtask(maxUnflushedBytesPerSubtask)
                .maxOffHeapBytesPerSubtask(maxOffHeapBytesPerSubtask)
                .memtableMaxAge(memtableMaxAge)
                .compaction(compaction)
                .maintenanceInterval(maintenanceInterval)
                .keepMergedFor(keepMergedFor)
                .garbageCollection(garbageCollection)
                .gcRetention(gcRetention)
                .gcConsumerExpiration(gcConsumerExpiration);
        b.explicitMemory = EnumSet.copyOf(explicitMemory);
        return b;
    }

    /** Whether {@code setting} was given rather than left to its default. */
    public boolean isExplicit(MemorySetting setting) {
        return explicitMemory.contains(setting);
    }

    /** The memory settings given explicitly. */
    public Set<MemorySetting> explicitMemorySettings() {
        return EnumSet.copyOf(explicitMemory);
    }

    /**
     * These settings with the memory sizes a writer subtask runs with (derived from its slot's
     * memory, or the ones given); which settings were explicit stays as it was.
     *
     * @throws IllegalArgumentException if they do not fit together, naming the settings
     */
    public ShardWriterConfig withMemory(
            long walBuffer, long memtable, long unflushed, long unflushedPerSubtask, long offHeapCap) {
        Builder b = toBuilder()
                .walMaxBufferBytes(walBuffer)
                .memtableMaxBytes(memtable)
                .maxUnflushedBytes(unflushed)
                .maxUnflushedBytesPerSubtask(unflushedPerSubtask)
                .maxOffHeapBytesPerSubtask(offHeapCap);
        b.explicitMemory = EnumSet.copyOf(explicitMemory);
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public static ShardWriterConfig defaults() {
        return builder().build();
    }

    /** The ticker: a shard with pending rows appends them about once per interval. */
    public Duration flushInterval() {
        return flushInterval;
    }

    /** Pending bytes that trigger an append before the next tick. */
    public long walMaxBufferBytes() {
        return walMaxBufferBytes;
    }

    /**
     * The most WAL appends a second a writer subtask's ticks start over all its shards
     * ({@code sink.wal.max-appends-per-second}); a subtask with more shards than the flush
     * interval allows within it spaces each shard's ticks further apart.
     */
    public int walMaxAppendsPerSecond() {
        return walMaxAppendsPerSecond;
    }

    public long memtableMaxBytes() {
        return memtableMaxBytes;
    }

    public long memtableMaxRows() {
        return memtableMaxRows;
    }

    public int memtableMaxBatches() {
        return memtableMaxBatches;
    }

    /** Rows after which the memtable's open batch is sealed and a new one starts. */
    public int batchMaxRows() {
        return batchMaxRows;
    }

    /** Bytes held in memtables not yet in SSTables above which the owner should stop feeding. */
    public long maxUnflushedBytes() {
        return maxUnflushedBytes;
    }

    /** The same, summed over all shards of one writer subtask. */
    public long maxUnflushedBytesPerSubtask() {
        return maxUnflushedBytesPerSubtask;
    }

    /**
     * The cap of a writer subtask's Arrow allocator ({@code sink.max-off-heap-bytes-per-subtask}):
     * the explicit setting, or else {@link #derivedOffHeapBytesPerSubtask()}.
     */
    public long offHeapBytesPerSubtask() {
        return maxOffHeapBytesPerSubtask > 0 ? maxOffHeapBytesPerSubtask : derivedOffHeapBytesPerSubtask();
    }

    /** Whether {@link #offHeapBytesPerSubtask()} was set rather than derived. */
    public boolean offHeapBytesPerSubtaskExplicit() {
        return maxOffHeapBytesPerSubtask > 0;
    }

    /**
     * The memtables' budget plus headroom: one memtable for SSTable writes (the rows copied out of
     * a memtable while lance-core writes it, the staging batch, a vector doubling) and two WAL
     * buffers for replay (an entry decoded, and its copy). docs/operations.md#memory-sizing.
     */
    public long derivedOffHeapBytesPerSubtask() {
        return maxUnflushedBytesPerSubtask + memtableMaxBytes + 2 * walMaxBufferBytes;
    }

    /**
     * At a checkpoint barrier, a memtable holding rows older than this is frozen and written as an
     * SSTable before the checkpoint is taken, so the checkpoint publishes it: rows become visible to
     * readers of published data within about this age plus one checkpoint interval. Zero: every
     * checkpoint publishes everything before its barrier.
     */
    public Duration memtableMaxAge() {
        return memtableMaxAge;
    }

    /** Whether the sink merges published SSTables into the Lance base table (one subtask per table). */
    public boolean compaction() {
        return compaction;
    }

    /** At most one maintenance run (compaction, then garbage collection) starts per this interval. */
    public Duration maintenanceInterval() {
        return maintenanceInterval;
    }

    /**
     * How long a shard's manifest keeps listing an SSTable after the writer first saw it merged
     * into the base table: readers that open the base table before they read the manifests
     * (LanceDB) then find its rows in one or the other (docs/architecture.md, "Readers and drops").
     */
    public Duration keepMergedFor() {
        return keepMergedFor;
    }

    /** Whether the sink removes what no live manifest and no retained checkpoint can need. */
    public boolean garbageCollection() {
        return garbageCollection;
    }

    /** How long removed history stays: checkpoints and savepoints older than this cannot be restored. */
    public Duration gcRetention() {
        return gcRetention;
    }

    /** How long a continuous read's consumer record keeps what the read needs after it was written. */
    public Duration gcConsumerExpiration() {
        return gcConsumerExpiration;
    }

    /**
     * How old the base version a checkpoint records for a shard may get before a snapshot reads a
     * newer one ({@link BaseVersionRefresh}): half the retention, at most 5 minutes. The base
     * table's cleanup keeps the versions that were the latest within the retention and this age.
     */
    public Duration baseVersionMaxAge() {
        return baseVersionMaxAge(gcRetention);
    }

    /**
     * How old the base version a snapshot records may be, for the base table cleanup's {@code
     * retention}: half of it, at most 5 minutes. The cleanup keeps the versions that were the latest
     * within the retention and this age, so a snapshot's version outlives the checkpoint's retention.
     */
    public static Duration baseVersionMaxAge(Duration retention) {
        Duration half = retention.dividedBy(2);
        Duration most = Duration.ofMinutes(5);
        return half.compareTo(most) < 0 ? half : most;
    }

    @Override
    public String toString() {
        return "ShardWriterConfig{flushInterval=" + flushInterval
                + ", walMaxBufferBytes=" + walMaxBufferBytes
                + ", walMaxAppendsPerSecond=" + walMaxAppendsPerSecond
                + ", memtableMaxBytes=" + memtableMaxBytes
                + ", memtableMaxRows=" + memtableMaxRows
                + ", memtableMaxBatches=" + memtableMaxBatches
                + ", batchMaxRows=" + batchMaxRows
                + ", maxUnflushedBytes=" + maxUnflushedBytes
                + ", maxUnflushedBytesPerSubtask=" + maxUnflushedBytesPerSubtask
                + ", maxOffHeapBytesPerSubtask=" + offHeapBytesPerSubtask()
                + (offHeapBytesPerSubtaskExplicit() ? "" : " (derived)")
                + ", memtableMaxAge=" + memtableMaxAge
                + ", compaction=" + compaction
                + ", maintenanceInterval=" + maintenanceInterval
                + ", keepMergedFor=" + keepMergedFor
                + ", garbageCollection=" + garbageCollection
                + ", gcRetention=" + gcRetention
                + ", gcConsumerExpiration=" + gcConsumerExpiration
                + ", explicitMemory=" + explicitMemory + "}";
    }

    public static final class Builder {
        private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
        private long walMaxBufferBytes = DEFAULT_WAL_MAX_BUFFER_BYTES;
        private int walMaxAppendsPerSecond = DEFAULT_WAL_MAX_APPENDS_PER_SECOND;
        private long memtableMaxBytes = DEFAULT_MEMTABLE_MAX_BYTES;
        private long memtableMaxRows = DEFAULT_MEMTABLE_MAX_ROWS;
        private int memtableMaxBatches = DEFAULT_MEMTABLE_MAX_BATCHES;
        private int batchMaxRows = DEFAULT_BATCH_MAX_ROWS;
        private long maxUnflushedBytes = DEFAULT_MAX_UNFLUSHED_BYTES;
        private long maxUnflushedBytesPerSubtask = DEFAULT_MAX_UNFLUSHED_BYTES_PER_SUBTASK;
        private long maxOffHeapBytesPerSubtask;
        private Duration memtableMaxAge = DEFAULT_MEMTABLE_MAX_AGE;
        private boolean compaction = DEFAULT_COMPACTION;
        private Duration maintenanceInterval = DEFAULT_MAINTENANCE_INTERVAL;
        private Duration keepMergedFor = DEFAULT_KEEP_MERGED_FOR;
        private boolean garbageCollection = DEFAULT_GARBAGE_COLLECTION;
        private Duration gcRetention = DEFAULT_GC_RETENTION;
        private Duration gcConsumerExpiration = DEFAULT_GC_CONSUMER_EXPIRATION;
        private EnumSet<MemorySetting> explicitMemory = EnumSet.noneOf(MemorySetting.class);

        public Builder flushInterval(Duration v) {
            this.flushInterval = v;
            return this;
        }

        public Builder walMaxBufferBytes(long v) {
            this.walMaxBufferBytes = v;
            explicitMemory.add(MemorySetting.WAL_BUFFER);
            return this;
        }

        public Builder walMaxAppendsPerSecond(int v) {
            this.walMaxAppendsPerSecond = v;
            return this;
        }

        public Builder memtableMaxBytes(long v) {
            this.memtableMaxBytes = v;
            explicitMemory.add(MemorySetting.MEMTABLE);
            return this;
        }

        public Builder memtableMaxRows(long v) {
            this.memtableMaxRows = v;
            return this;
        }

        public Builder memtableMaxBatches(int v) {
            this.memtableMaxBatches = v;
            return this;
        }

        public Builder batchMaxRows(int v) {
            this.batchMaxRows = v;
            return this;
        }

        public Builder maxUnflushedBytes(long v) {
            this.maxUnflushedBytes = v;
            explicitMemory.add(MemorySetting.UNFLUSHED);
            return this;
        }

        public Builder maxUnflushedBytesPerSubtask(long v) {
            this.maxUnflushedBytesPerSubtask = v;
            explicitMemory.add(MemorySetting.UNFLUSHED_PER_SUBTASK);
            return this;
        }

        /** 0 derives it from the other budgets. */
        public Builder maxOffHeapBytesPerSubtask(long v) {
            this.maxOffHeapBytesPerSubtask = v;
            if (v == 0) {
                explicitMemory.remove(MemorySetting.OFF_HEAP);
            } else {
                explicitMemory.add(MemorySetting.OFF_HEAP);
            }
            return this;
        }

        public Builder memtableMaxAge(Duration v) {
            this.memtableMaxAge = v;
            return this;
        }

        public Builder compaction(boolean v) {
            this.compaction = v;
            return this;
        }

        public Builder maintenanceInterval(Duration v) {
            this.maintenanceInterval = v;
            return this;
        }

        public Builder keepMergedFor(Duration v) {
            this.keepMergedFor = v;
            return this;
        }

        public Builder garbageCollection(boolean v) {
            this.garbageCollection = v;
            return this;
        }

        public Builder gcRetention(Duration v) {
            this.gcRetention = v;
            return this;
        }

        public Builder gcConsumerExpiration(Duration v) {
            this.gcConsumerExpiration = v;
            return this;
        }

        /** @throws IllegalArgumentException listing every problem, each naming its setting */
        public ShardWriterConfig build() {
            List<String> problems = new ArrayList<>();
            if (flushInterval == null || flushInterval.isNegative() || flushInterval.isZero()) {
                problems.add("sink.flush-interval must be positive for durable writes, was " + flushInterval);
            }
            positive(problems, "sink.wal.max-buffer-size", walMaxBufferBytes);
            positive(problems, "sink.wal.max-appends-per-second", walMaxAppendsPerSecond);
            positive(problems, "sink.memtable.max-size", memtableMaxBytes);
            positive(problems, "sink.memtable.max-rows", memtableMaxRows);
            if (gcRetention == null || gcRetention.isNegative() || gcRetention.isZero()) {
                problems.add("sink.gc.retention must be positive, was " + gcRetention);
            }
            if (gcConsumerExpiration == null || gcConsumerExpiration.isNegative() || gcConsumerExpiration.isZero()) {
                problems.add("sink.gc.consumer-expiration must be positive, was " + gcConsumerExpiration);
            }
            if (maintenanceInterval == null || maintenanceInterval.isNegative()) {
                problems.add("sink.maintenance.interval must be zero or positive, was " + maintenanceInterval);
            }
            if (keepMergedFor == null || keepMergedFor.isNegative()) {
                problems.add("sink.compaction.keep-merged-for must be zero or positive, was " + keepMergedFor);
            }
            if (memtableMaxAge == null || memtableMaxAge.isNegative()) {
                problems.add("sink.memtable.max-age must be zero or positive, was " + memtableMaxAge);
            }
            positive(problems, "memtable max batches", memtableMaxBatches);
            positive(problems, "batch max rows", batchMaxRows);
            positive(problems, "sink.max-unflushed-bytes", maxUnflushedBytes);
            positive(problems, "sink.max-unflushed-bytes-per-subtask", maxUnflushedBytesPerSubtask);
            if (maxUnflushedBytesPerSubtask < memtableMaxBytes) {
                problems.add("sink.max-unflushed-bytes-per-subtask (" + maxUnflushedBytesPerSubtask
                        + ") must be at least sink.memtable.max-size (" + memtableMaxBytes + ")");
            }
            if (maxUnflushedBytes < memtableMaxBytes) {
                problems.add("sink.max-unflushed-bytes (" + maxUnflushedBytes
                        + ") must be at least sink.memtable.max-size (" + memtableMaxBytes
                        + "), or a single full memtable would block the writer forever");
            }
            if (maxOffHeapBytesPerSubtask < 0) {
                problems.add("sink.max-off-heap-bytes-per-subtask must be positive, was " + maxOffHeapBytesPerSubtask);
            } else if (maxOffHeapBytesPerSubtask > 0 && maxOffHeapBytesPerSubtask <= maxUnflushedBytesPerSubtask) {
                problems.add("sink.max-off-heap-bytes-per-subtask (" + maxOffHeapBytesPerSubtask
                        + ") must exceed sink.max-unflushed-bytes-per-subtask (" + maxUnflushedBytesPerSubtask
                        + "): the memtables must fit, plus headroom for SSTable writes and replay");
            }
            if (walMaxBufferBytes > memtableMaxBytes) {
                problems.add("sink.wal.max-buffer-size (" + walMaxBufferBytes
                        + ") must not exceed sink.memtable.max-size (" + memtableMaxBytes + ")");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(
                        "invalid shard writer configuration: " + String.join("; ", problems));
            }
            return new ShardWriterConfig(this);
        }

        private static void positive(List<String> problems, String name, long value) {
            if (value <= 0) {
                problems.add(name + " must be positive, was " + value);
            }
        }
    }
}
