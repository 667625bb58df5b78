package io.walsink.flink;

import io.walsink.annotation.PublicEvolving;
import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.flink.internal.InputConversion;
import io.walsink.flink.internal.memory.SinkSettings;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.TableInfo;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.schema.AddedColumns;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds a {@link WalSink}. {@link #build()} opens the table (or creates it with
 * {@link #createTableIfMissing}) and checks the input row type, key and settings against it, so
 * a mistake fails while the job is built, before any shard is claimed.
 */
@PublicEvolving
public final class WalSinkBuilder<IN> {

    private final InputConversion<IN> conversion;
    private final RowType rowType;
    private String path;
    private List<String> primaryKey;
    private Integer createBuckets;
    private final Configuration settings = new Configuration();
    private S3Options s3 = S3Options.defaults();
    private final Map<String, String> lanceStorageOptions = new HashMap<>();
    private WalSchemaProfile profile = WalSchemaProfile.SPEC;
    private WalSinkOptions.StoreWrapper storeWrapper;
    private final Map<String, Integer> vectorColumns = new LinkedHashMap<>();
    private final List<MaintainedIndex> maintainedIndexes = new ArrayList<>();

    WalSinkBuilder(InputConversion<IN> conversion, RowType rowType) {
        this.conversion = conversion;
        this.rowType = rowType;
    }

    /** {@code file:///dir}, a directory, or {@code s3://bucket/prefix}. Required. */
    public WalSinkBuilder<IN> path(String path) {
        this.path = path;
        return this;
    }

    /**
     * The primary key; checked against the table's, and used when the table is created. Without
     * one the sink writes an append-only table (rows are appended, never deduplicated; no deletes).
     */
    public WalSinkBuilder<IN> primaryKey(String... columns) {
        this.primaryKey = List.of(columns);
        return this;
    }

    /**
     * Creates the table if {@code path} holds none: the row type's schema, the primary key, and
     * {@code buckets} shards (1 to 1024), bucket-sharded on the {@link #bucketColumn} (by default the
     * first key column). Without a primary key the table is an append table (rows are never
     * deduplicated): its rows go to the shard of their bucket column's bucket, or without one
     * round-robin over the shards.
     */
    public WalSinkBuilder<IN> createTableIfMissing(int buckets) {
        this.createBuckets = buckets;
        return this;
    }

    /**
     * {@code sink.bucket-column}: the column whose Lance bucket picks a row's shard when the table
     * is created: a key column of a keyed table, any top-level primitive column of an append table.
     * Ignored for an existing table, whose sharding spec decides.
     */
    public WalSinkBuilder<IN> bucketColumn(String column) {
        settings.set(SinkOptions.BUCKET_COLUMN, Objects.requireNonNull(column, "column"));
        return this;
    }

    /**
     * Stores ARRAY column {@code column} as a vector: a Lance fixed-size list of {@code dimension}
     * elements ({@code ARRAY<FLOAT>}, from a POJO's {@code float[]}, becomes FixedSizeList of
     * float32, the layout Lance's vector indexes and LanceDB's vector search take; {@code
     * ARRAY<DOUBLE>} float64). Applies when the table is created; an existing table's column must
     * already be such a list. A row whose array has another length fails naming the column and the
     * row, before anything of its batch is written.
     */
    public WalSinkBuilder<IN> vectorColumn(String column, int dimension) {
        if (dimension <= 0) {
            throw new IllegalArgumentException(
                    "vector column '" + column + "': the dimension must be positive, got " + dimension);
        }
        vectorColumns.put(column, dimension);
        return this;
    }

    /**
     * Declares an index the table maintains under streaming writes (vector, scalar or full text):
     * built for every SSTable before it is published and on the base table by the compactor, as
     * Lance's MemWAL writers do, so LanceDB's default (LSM) searches find rows one checkpoint after
     * they are written. Applies when the table is created; for an existing table the declared set
     * must be the table's (declare none to use the table's own).
     */
    public WalSinkBuilder<IN> maintainedIndex(MaintainedIndex index) {
        maintainedIndexes.add(Objects.requireNonNull(index, "index"));
        return this;
    }

    /** {@code sink.flush-interval}: how often a shard with pending rows appends them (default 100 ms). */
    public WalSinkBuilder<IN> flushInterval(Duration interval) {
        settings.set(SinkOptions.FLUSH_INTERVAL, interval);
        return this;
    }

    /**
     * {@code sink.wal.max-appends-per-second}: the most WAL appends a second the flush ticks of one
     * writer subtask start over all its shards (default 20); with more shards than that allows at
     * the flush interval, each shard's ticks come further apart.
     */
    public WalSinkBuilder<IN> walMaxAppendsPerSecond(int appends) {
        settings.set(SinkOptions.WAL_MAX_APPENDS_PER_SECOND, appends);
        return this;
    }

    /** {@code sink.wal.max-buffer-size}: pending bytes that trigger an append before the tick. */
    public WalSinkBuilder<IN> walMaxBufferBytes(long bytes) {
        settings.set(SinkOptions.WAL_MAX_BUFFER_SIZE, new MemorySize(bytes));
        return this;
    }

    /** {@code sink.memtable.max-size}. */
    public WalSinkBuilder<IN> memtableMaxBytes(long bytes) {
        settings.set(SinkOptions.MEMTABLE_MAX_SIZE, new MemorySize(bytes));
        return this;
    }

    /** {@code sink.memtable.max-rows}. */
    public WalSinkBuilder<IN> memtableMaxRows(long rows) {
        settings.set(SinkOptions.MEMTABLE_MAX_ROWS, rows);
        return this;
    }

    /** {@code sink.max-unflushed-bytes}: memory per shard above which the writer backpressures. */
    public WalSinkBuilder<IN> maxUnflushedBytes(long bytes) {
        settings.set(SinkOptions.MAX_UNFLUSHED_BYTES, new MemorySize(bytes));
        return this;
    }

    /**
     * {@code sink.max-unflushed-bytes-per-subtask}: the same summed over a writer subtask's shards;
     * above it the writer freezes and flushes its largest shards first (default 1 GiB).
     */
    public WalSinkBuilder<IN> maxUnflushedBytesPerSubtask(long bytes) {
        settings.set(SinkOptions.MAX_UNFLUSHED_BYTES_PER_SUBTASK, new MemorySize(bytes));
        return this;
    }

    /**
     * {@code sink.max-off-heap-bytes-per-subtask}: the cap of a writer subtask's Arrow memory, taken
     * from its slot's managed memory (plus task off-heap memory, if the cluster gives any) and checked
     * against it when the writer starts. Unset: what the slot gives, less headroom for lance-core's
     * native memory, with the memtable, WAL buffer and unflushed budgets derived from it (see
     * docs/configuration.md#memory); in local execution the per-subtask unflushed budget plus one
     * memtable plus two WAL buffers (1168 MiB).
     */
    public WalSinkBuilder<IN> maxOffHeapBytesPerSubtask(long bytes) {
        settings.set(SinkOptions.MAX_OFF_HEAP_BYTES_PER_SUBTASK, new MemorySize(bytes));
        return this;
    }

    /**
     * {@code sink.memtable.max-age}: at a checkpoint barrier, memtables holding rows older than this
     * are written as SSTables so that the checkpoint publishes them (default 0: every checkpoint
     * publishes everything, at the cost of one SSTable per shard per checkpoint that saw rows, which
     * compaction merges; a longer age writes fewer SSTables and delays readers by up to that age).
     */
    public WalSinkBuilder<IN> memtableMaxAge(Duration age) {
        settings.set(SinkOptions.MEMTABLE_MAX_AGE, age);
        return this;
    }

    /**
     * {@code sink.memtable.max-aged-per-checkpoint}: the most memtables a writer subtask writes at a
     * checkpoint because of their age, oldest rows first (default 32); with n shards a subtask
     * publishes each within ceil(n / this) checkpoints past the age.
     */
    public WalSinkBuilder<IN> memtableMaxAgedPerCheckpoint(int memtables) {
        settings.set(SinkOptions.MEMTABLE_MAX_AGED_PER_CHECKPOINT, memtables);
        return this;
    }

    /**
     * {@code sink.compaction.enabled}: writer subtask 0 merges published SSTables into the Lance base
     * table on a thread of its own after completed checkpoints, without blocking the writers. Readers
     * that know nothing of MemWAL then see the rows, and reads merge fewer SSTables. On by default.
     */
    public WalSinkBuilder<IN> compaction(boolean enabled) {
        settings.set(SinkOptions.COMPACTION_ENABLED, enabled);
        return this;
    }

    /**
     * {@code sink.gc.enabled} and {@code sink.gc.retention}: writer subtask 0 removes WAL entries,
     * manifest versions, SSTable folders and records that no live manifest and no checkpoint younger
     * than {@code retention} can need (default 1 h). Restoring a checkpoint or savepoint older than
     * the retention then fails, naming it. On by default, with a retention of 1 h.
     */
    public WalSinkBuilder<IN> garbageCollection(boolean enabled, Duration retention) {
        settings.set(SinkOptions.GC_ENABLED, enabled).set(SinkOptions.GC_RETENTION, retention);
        return this;
    }

    /**
     * {@code sink.gc.consumer-expiration}: how long garbage collection keeps, beyond the retention,
     * what a continuous read with a consumer id ({@code scan.consumer-id}) still needs, after that
     * read last recorded its progress (default 1 day). Older consumer records are removed.
     */
    public WalSinkBuilder<IN> consumerExpiration(Duration expiration) {
        settings.set(SinkOptions.GC_CONSUMER_EXPIRATION, expiration);
        return this;
    }

    /**
     * {@code sink.maintenance.interval}: at most one compaction and collection run per interval
     * (default 10 s); a compaction run starts no merge after this long (at least 10 s).
     */
    public WalSinkBuilder<IN> maintenanceInterval(Duration interval) {
        settings.set(SinkOptions.MAINTENANCE_INTERVAL, interval);
        return this;
    }

    /**
     * {@code sink.compaction.keep-merged-for}: how long a shard's manifest keeps listing an SSTable
     * after its writer saw it merged into the base table (default 10 s), so that readers opening the
     * base table before the manifests (LanceDB) find its rows in one or the other; 0 drops it at
     * the next manifest update.
     */
    public WalSinkBuilder<IN> keepMergedFor(Duration keep) {
        settings.set(SinkOptions.COMPACTION_KEEP_MERGED_FOR, keep);
        return this;
    }

    /**
     * Every {@link SinkOptions} present in {@code options}, as SQL names them (for example from
     * {@code Configuration.fromMap(Map.of("sink.memtable.max-age", "1 min"))}); each replaces what
     * was set before. The other methods set one option each.
     */
    public WalSinkBuilder<IN> options(ReadableConfig options) {
        for (ConfigOption<?> option : SinkOptions.all()) {
            copy(options, option);
        }
        return this;
    }

    private <T> void copy(ReadableConfig options, ConfigOption<T> option) {
        options.getOptional(option).ifPresent(value -> settings.set(option, value));
    }

    public WalSinkBuilder<IN> s3(S3Options options) {
        this.s3 = options;
        return this;
    }

    /** An object-store option passed to lance-core (SSTable writes and table reads). */
    public WalSinkBuilder<IN> lanceStorageOption(String key, String value) {
        this.lanceStorageOptions.put(key, value);
        return this;
    }

    /** {@code wal.schema-profile}: {@code spec} (default) or {@code lance-java-7.0}. */
    public WalSinkBuilder<IN> schemaProfile(WalSchemaProfile profile) {
        this.profile = profile;
        return this;
    }

    /** Threads per writer subtask for object-store I/O, and shards it restores at once (default 4). */
    public WalSinkBuilder<IN> ioThreads(int threads) {
        settings.set(SinkOptions.IO_THREADS, threads);
        return this;
    }

    /** {@code sink.parallelism} of the writer operator (default: the job's). */
    public WalSinkBuilder<IN> parallelism(int parallelism) {
        settings.set(SinkOptions.PARALLELISM, parallelism);
        return this;
    }

    /**
     * Wraps the object store each writer opens; meant for tests (fault injection, counting PUTs).
     * The wrapper is serialized with the job.
     */
    WalSinkBuilder<IN> storeWrapper(WalSinkOptions.StoreWrapper wrapper) {
        this.storeWrapper = wrapper;
        return this;
    }

    public WalSink<IN> build() {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("path is required: file:///dir, a directory, or s3://bucket/prefix");
        }
        SinkSettings checked = SinkSettings.from(settings);
        Map<String, String> lance = new HashMap<>(LanceStorageOptions.of(StorageLocation.parse(path), s3));
        lance.putAll(lanceStorageOptions); // explicit options win over derived ones
        WalSinkOptions options = new WalSinkOptions(path, s3, lance, profile, checked, storeWrapper);
        TableInfo table = openOrCreate(options);
        if (checked.get(SinkOptions.ADD_COLUMNS) && rowType != null) {
            table = withDeclaredColumns(options, table);
        }
        VectorColumns.check(vectorColumns, table.schema(), path);
        MaintainedIndexes.checkDeclared(maintainedIndexes, table);
        List<String> tableKey = AppendRowKey.of(table) ? List.of() : table.primaryKey(); // generated, not the users'
        if (primaryKey != null && !primaryKey.equals(tableKey)) {
            throw new IllegalArgumentException("primary key " + primaryKey + " does not match the primary key "
                    + tableKey + " of the table at " + path);
        }
        RowType effective = rowType != null ? rowType : WalSink.rowTypeOf(table);
        return WalSink.create(
                options,
                table,
                effective,
                conversion,
                checked.isSet(SinkOptions.PARALLELISM) ? checked.get(SinkOptions.PARALLELISM) : null);
    }

    /** The table with the columns {@code rowType} declares and it lacks added ({@code sink.add-columns}). */
    private TableInfo withDeclaredColumns(WalSinkOptions options, TableInfo table) {
        List<Field> added = new ArrayList<>();
        for (RowType.RowField f : rowType.getFields()) {
            if (table.schema().getFields().stream().noneMatch(c -> c.getName().equals(f.getName()))) {
                added.add(FlinkArrowTypes.toArrowField(f.getName(), f.getType()));
            }
        }
        if (added.isEmpty()) {
            return table;
        }
        AddedColumns.add(path, s3, options.lanceUri(), options.lanceStorageOptions(), added);
        return LanceTables.open(options.lanceUri(), options.lanceStorageOptions(), true);
    }

    private TableInfo openOrCreate(WalSinkOptions options) {
        return SinkTableCreation.openOrCreate(
                options, path, rowType, primaryKey, createBuckets, vectorColumns, maintainedIndexes);
    }
}
