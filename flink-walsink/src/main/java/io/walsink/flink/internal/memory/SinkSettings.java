package io.walsink.flink.internal.memory;

import static io.walsink.flink.SinkOptions.COMPACTION_KEEP_MERGED_FOR;
import static io.walsink.flink.SinkOptions.FLUSH_INTERVAL;
import static io.walsink.flink.SinkOptions.GC_CONSUMER_EXPIRATION;
import static io.walsink.flink.SinkOptions.GC_RETENTION;
import static io.walsink.flink.SinkOptions.IO_THREADS;
import static io.walsink.flink.SinkOptions.MAINTENANCE_INTERVAL;
import static io.walsink.flink.SinkOptions.MAX_OFF_HEAP_BYTES_PER_SUBTASK;
import static io.walsink.flink.SinkOptions.MAX_UNFLUSHED_BYTES;
import static io.walsink.flink.SinkOptions.MAX_UNFLUSHED_BYTES_PER_SUBTASK;
import static io.walsink.flink.SinkOptions.MEMTABLE_MAX_AGE;
import static io.walsink.flink.SinkOptions.MEMTABLE_MAX_AGED_PER_CHECKPOINT;
import static io.walsink.flink.SinkOptions.MEMTABLE_MAX_ROWS;
import static io.walsink.flink.SinkOptions.MEMTABLE_MAX_SIZE;
import static io.walsink.flink.SinkOptions.PARALLELISM;
import static io.walsink.flink.SinkOptions.WAL_MAX_APPENDS_PER_SECOND;
import static io.walsink.flink.SinkOptions.WAL_MAX_BUFFER_SIZE;

import io.walsink.annotation.Internal;
import io.walsink.flink.SinkOptions;
import io.walsink.shard.ShardWriterConfig;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The {@link SinkOptions} one sink runs with, checked together when the job is built: the only
 * place they are validated, for the DataStream builder and SQL alike. Holds just the options that
 * were set, so that memory sizes left unset can be derived from the slot when the writer starts
 * ({@link WriterMemory}).
 */
@Internal
public final class SinkSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Configuration set;

    private SinkSettings(Configuration set) {
        this.set = set;
    }

    /**
     * The sink options present in {@code options}, checked.
     *
     * @throws IllegalArgumentException listing every problem, each naming its option
     */
    public static SinkSettings from(ReadableConfig options) {
        Configuration set = new Configuration();
        for (ConfigOption<?> option : SinkOptions.all()) {
            copy(options, set, option);
        }
        SinkSettings settings = new SinkSettings(set);
        List<String> problems = settings.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return settings;
    }

    public static SinkSettings defaults() {
        return from(new Configuration());
    }

    private static <T> void copy(ReadableConfig from, Configuration to, ConfigOption<T> option) {
        from.getOptional(option).ifPresent(value -> to.set(option, value));
    }

    /** The value set, or the option's default. */
    public <T> T get(ConfigOption<T> option) {
        return set.get(option);
    }

    /** The options set, as a copy a builder can take ({@code WalSinkBuilder.options}). */
    public Configuration options() {
        return new Configuration(set);
    }

    /** Whether {@code option} was given rather than left to its default. */
    public boolean isSet(ConfigOption<?> option) {
        return set.contains(option);
    }

    long bytes(ConfigOption<MemorySize> option) {
        return set.get(option).getBytes();
    }

    /** The memory-size options given, by name, for messages. */
    List<String> memorySettingsSet() {
        List<String> names = new ArrayList<>();
        for (ConfigOption<MemorySize> option : List.of(
                WAL_MAX_BUFFER_SIZE,
                MEMTABLE_MAX_SIZE,
                MAX_UNFLUSHED_BYTES,
                MAX_UNFLUSHED_BYTES_PER_SUBTASK,
                MAX_OFF_HEAP_BYTES_PER_SUBTASK)) {
            if (isSet(option)) {
                names.add(option.key());
            }
        }
        return names;
    }

    /**
     * The cap of a writer subtask's Arrow allocator as requested: the explicit setting, or the
     * per-subtask unflushed budget plus one memtable (for SSTable writes) plus two WAL buffers (an
     * entry decoded in replay, and its copy). docs/operations.md#memory-sizing.
     */
    public long offHeapBytesPerSubtask() {
        if (isSet(MAX_OFF_HEAP_BYTES_PER_SUBTASK)) {
            return bytes(MAX_OFF_HEAP_BYTES_PER_SUBTASK);
        }
        return bytes(MAX_UNFLUSHED_BYTES_PER_SUBTASK) + bytes(MEMTABLE_MAX_SIZE) + 2 * bytes(WAL_MAX_BUFFER_SIZE);
    }

    /** A shard writer's settings with these memory sizes, as given or defaulted. */
    public ShardWriterConfig shardWriterConfig() {
        return shardWriterConfig(bytes(WAL_MAX_BUFFER_SIZE), bytes(MEMTABLE_MAX_SIZE), bytes(MAX_UNFLUSHED_BYTES));
    }

    /** A shard writer's settings with the memory sizes a writer subtask planned. */
    ShardWriterConfig shardWriterConfig(long walBuffer, long memtable, long unflushed) {
        return ShardWriterConfig.builder()
                .flushInterval(get(FLUSH_INTERVAL))
                .walMaxBufferBytes(walBuffer)
                .memtableMaxBytes(memtable)
                .memtableMaxRows(get(MEMTABLE_MAX_ROWS))
                .maxUnflushedBytes(unflushed)
                .keepMergedFor(get(COMPACTION_KEEP_MERGED_FOR))
                .baseVersionMaxAge(ShardWriterConfig.baseVersionMaxAge(get(GC_RETENTION)))
                .build();
    }

    private List<String> problems() {
        List<String> problems = new ArrayList<>();
        Duration flush = get(FLUSH_INTERVAL);
        if (flush.isZero() || flush.isNegative()) {
            problems.add(invalid(FLUSH_INTERVAL, "must be positive for durable writes, was " + flush));
        }
        positive(problems, WAL_MAX_APPENDS_PER_SECOND, get(WAL_MAX_APPENDS_PER_SECOND));
        positive(problems, MEMTABLE_MAX_ROWS, get(MEMTABLE_MAX_ROWS));
        positive(problems, MEMTABLE_MAX_AGED_PER_CHECKPOINT, get(MEMTABLE_MAX_AGED_PER_CHECKPOINT));
        positive(problems, IO_THREADS, get(IO_THREADS));
        if (isSet(PARALLELISM)) {
            positive(problems, PARALLELISM, get(PARALLELISM));
        }
        positiveDuration(problems, GC_RETENTION);
        positiveDuration(problems, GC_CONSUMER_EXPIRATION);
        for (ConfigOption<Duration> option :
                List.of(MAINTENANCE_INTERVAL, COMPACTION_KEEP_MERGED_FOR, MEMTABLE_MAX_AGE)) {
            if (get(option).isNegative()) {
                problems.add(invalid(option, "must be zero or positive, was " + get(option)));
            }
        }
        long wal = bytes(WAL_MAX_BUFFER_SIZE);
        long memtable = bytes(MEMTABLE_MAX_SIZE);
        long unflushed = bytes(MAX_UNFLUSHED_BYTES);
        long perSubtask = bytes(MAX_UNFLUSHED_BYTES_PER_SUBTASK);
        int before = problems.size();
        positive(problems, WAL_MAX_BUFFER_SIZE, wal);
        positive(problems, MEMTABLE_MAX_SIZE, memtable);
        positive(problems, MAX_UNFLUSHED_BYTES, unflushed);
        positive(problems, MAX_UNFLUSHED_BYTES_PER_SUBTASK, perSubtask);
        if (isSet(MAX_OFF_HEAP_BYTES_PER_SUBTASK)) {
            positive(problems, MAX_OFF_HEAP_BYTES_PER_SUBTASK, bytes(MAX_OFF_HEAP_BYTES_PER_SUBTASK));
        }
        if (problems.size() > before) {
            return problems; // the sizes' relations mean nothing while one of them is not positive
        }
        if (perSubtask < memtable) {
            problems.add(MAX_UNFLUSHED_BYTES_PER_SUBTASK.key() + " (" + perSubtask + ") must be at least "
                    + MEMTABLE_MAX_SIZE.key() + " (" + memtable + ")");
        }
        if (unflushed < memtable) {
            problems.add(MAX_UNFLUSHED_BYTES.key() + " (" + unflushed + ") must be at least " + MEMTABLE_MAX_SIZE.key()
                    + " (" + memtable + "), or a single full memtable would block the writer forever");
        }
        if (isSet(MAX_OFF_HEAP_BYTES_PER_SUBTASK) && bytes(MAX_OFF_HEAP_BYTES_PER_SUBTASK) <= perSubtask) {
            problems.add(MAX_OFF_HEAP_BYTES_PER_SUBTASK.key() + " (" + bytes(MAX_OFF_HEAP_BYTES_PER_SUBTASK)
                    + ") must exceed " + MAX_UNFLUSHED_BYTES_PER_SUBTASK.key() + " (" + perSubtask
                    + "): the memtables must fit, plus headroom for SSTable writes and replay");
        }
        if (wal > memtable) {
            problems.add(WAL_MAX_BUFFER_SIZE.key() + " (" + wal + ") must not exceed " + MEMTABLE_MAX_SIZE.key() + " ("
                    + memtable + ")");
        }
        return problems;
    }

    private void positiveDuration(List<String> problems, ConfigOption<Duration> option) {
        if (get(option).isZero() || get(option).isNegative()) {
            problems.add(invalid(option, "must be positive, was " + get(option)));
        }
    }

    private static void positive(List<String> problems, ConfigOption<?> option, long value) {
        if (value <= 0) {
            problems.add(invalid(option, "must be positive, was " + value));
        }
    }

    private static String invalid(ConfigOption<?> option, String problem) {
        return "Invalid walsink option '" + option.key() + "': " + problem;
    }

    @Override
    public String toString() {
        return "SinkSettings" + set.toMap();
    }
}
