package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.shard.memtable.Memtable;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one shard writer runs with: its limits and timings. The sink derives it from its options
 * ({@code io.walsink.flink.SinkOptions}); tests and benchmarks of the engine build one directly.
 * Validated as a whole: a budget that can never be met would otherwise fail only at the first
 * large memtable.
 */
@Internal
public final class ShardWriterConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofMillis(100);
    public static final long DEFAULT_WAL_MAX_BUFFER_BYTES = 8L << 20;
    public static final long DEFAULT_MEMTABLE_MAX_BYTES = 128L << 20;
    public static final long DEFAULT_MEMTABLE_MAX_ROWS = 1_000_000;
    public static final int DEFAULT_MEMTABLE_MAX_BATCHES = 4_096;
    public static final int DEFAULT_BATCH_MAX_ROWS = Memtable.DEFAULT_BATCH_MAX_ROWS;
    public static final long DEFAULT_MAX_UNFLUSHED_BYTES = 512L << 20;
    /**
     * Longer than a LanceDB read takes between opening the base table and reading the shard
     * manifests, even on a loaded machine (seconds); each second keeps about one more SSTable per
     * shard listed at one checkpoint a second.
     */
    public static final Duration DEFAULT_KEEP_MERGED_FOR = Duration.ofSeconds(10);
    /** {@link #baseVersionMaxAge(Duration)} of the sink's default retention of 1 h. */
    public static final Duration DEFAULT_BASE_VERSION_MAX_AGE = Duration.ofMinutes(5);

    private final Duration flushInterval;
    private final long walMaxBufferBytes;
    private final long memtableMaxBytes;
    private final long memtableMaxRows;
    private final int memtableMaxBatches;
    private final int batchMaxRows;
    private final long maxUnflushedBytes;
    private final Duration keepMergedFor;
    private final Duration baseVersionMaxAge;

    private ShardWriterConfig(Builder b) {
        this.flushInterval = b.flushInterval;
        this.walMaxBufferBytes = b.walMaxBufferBytes;
        this.memtableMaxBytes = b.memtableMaxBytes;
        this.memtableMaxRows = b.memtableMaxRows;
        this.memtableMaxBatches = b.memtableMaxBatches;
        this.batchMaxRows = b.batchMaxRows;
        this.maxUnflushedBytes = b.maxUnflushedBytes;
        this.keepMergedFor = b.keepMergedFor;
        this.baseVersionMaxAge = b.baseVersionMaxAge;
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return builder()
                .flushInterval(flushInterval)
                .walMaxBufferBytes(walMaxBufferBytes)
                .memtableMaxBytes(memtableMaxBytes)
                .memtableMaxRows(memtableMaxRows)
                .memtableMaxBatches(memtableMaxBatches)
                .batchMaxRows(batchMaxRows)
                .maxUnflushedBytes(maxUnflushedBytes)
                .keepMergedFor(keepMergedFor)
                .baseVersionMaxAge(baseVersionMaxAge);
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

    /**
     * How long a shard's manifest keeps listing an SSTable after the writer first saw it merged
     * into the base table: readers that open the base table before they read the manifests
     * (LanceDB) then find its rows in one or the other (docs/architecture.md, "Readers and drops").
     */
    public Duration keepMergedFor() {
        return keepMergedFor;
    }

    /**
     * How old the base version a checkpoint records for a shard may get before a snapshot reads a
     * newer one ({@link BaseVersionRefresh}); {@link #baseVersionMaxAge(Duration)} of the retention.
     */
    public Duration baseVersionMaxAge() {
        return baseVersionMaxAge;
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
                + ", memtableMaxBytes=" + memtableMaxBytes
                + ", memtableMaxRows=" + memtableMaxRows
                + ", memtableMaxBatches=" + memtableMaxBatches
                + ", batchMaxRows=" + batchMaxRows
                + ", maxUnflushedBytes=" + maxUnflushedBytes
                + ", keepMergedFor=" + keepMergedFor
                + ", baseVersionMaxAge=" + baseVersionMaxAge + "}";
    }

    public static final class Builder {
        private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
        private long walMaxBufferBytes = DEFAULT_WAL_MAX_BUFFER_BYTES;
        private long memtableMaxBytes = DEFAULT_MEMTABLE_MAX_BYTES;
        private long memtableMaxRows = DEFAULT_MEMTABLE_MAX_ROWS;
        private int memtableMaxBatches = DEFAULT_MEMTABLE_MAX_BATCHES;
        private int batchMaxRows = DEFAULT_BATCH_MAX_ROWS;
        private long maxUnflushedBytes = DEFAULT_MAX_UNFLUSHED_BYTES;
        private Duration keepMergedFor = DEFAULT_KEEP_MERGED_FOR;
        private Duration baseVersionMaxAge = DEFAULT_BASE_VERSION_MAX_AGE;

        public Builder flushInterval(Duration v) {
            this.flushInterval = v;
            return this;
        }

        public Builder walMaxBufferBytes(long v) {
            this.walMaxBufferBytes = v;
            return this;
        }

        public Builder memtableMaxBytes(long v) {
            this.memtableMaxBytes = v;
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
            return this;
        }

        public Builder keepMergedFor(Duration v) {
            this.keepMergedFor = v;
            return this;
        }

        public Builder baseVersionMaxAge(Duration v) {
            this.baseVersionMaxAge = v;
            return this;
        }

        /** @throws IllegalArgumentException listing every problem, each naming its setting */
        public ShardWriterConfig build() {
            List<String> problems = new ArrayList<>();
            if (flushInterval == null || flushInterval.isNegative() || flushInterval.isZero()) {
                problems.add("sink.flush-interval must be positive for durable writes, was " + flushInterval);
            }
            positive(problems, "sink.wal.max-buffer-size", walMaxBufferBytes);
            positive(problems, "sink.memtable.max-size", memtableMaxBytes);
            positive(problems, "sink.memtable.max-rows", memtableMaxRows);
            if (keepMergedFor == null || keepMergedFor.isNegative()) {
                problems.add("sink.compaction.keep-merged-for must be zero or positive, was " + keepMergedFor);
            }
            if (baseVersionMaxAge == null || baseVersionMaxAge.isNegative()) {
                problems.add("the base version's max age must be zero or positive, was " + baseVersionMaxAge);
            }
            positive(problems, "memtable max batches", memtableMaxBatches);
            positive(problems, "batch max rows", batchMaxRows);
            positive(problems, "sink.max-unflushed-bytes", maxUnflushedBytes);
            if (maxUnflushedBytes < memtableMaxBytes) {
                problems.add("sink.max-unflushed-bytes (" + maxUnflushedBytes
                        + ") must be at least sink.memtable.max-size (" + memtableMaxBytes
                        + "), or a single full memtable would block the writer forever");
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
