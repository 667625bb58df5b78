package io.walsink.table;

import io.walsink.annotation.PublicEvolving;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.table.scan.TableScan;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.connector.source.lookup.LookupOptions;

/**
 * Every option of the {@code 'connector' = 'walsink'} tables. docs/configuration.md is rendered
 * from these (a test fails when the two drift). Values are checked by {@link WalSinkTableConfig}.
 */
@PublicEvolving
public final class WalSinkTableOptions {
    private WalSinkTableOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path")
            .stringType()
            .noDefaultValue()
            .withDescription("The table location: file:///dir, a local directory, or s3://bucket/prefix. Required.");

    public static final ConfigOption<Integer> BUCKETS = ConfigOptions.key("buckets")
            .intType()
            .noDefaultValue()
            .withDescription("Bucket count, in [1, 1024], used only when the sink creates the table (bucket sharding"
                    + " on the first primary-key column). Required when 'path' holds no table yet.");

    private static final String UNSET_DERIVED = " Unset: derived from the memory the writer's slot gives it"
            + " (docs/configuration.md#memory); the default applies in local execution.";

    public static final ConfigOption<Duration> SINK_FLUSH_INTERVAL = ConfigOptions.key("sink.flush-interval")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_FLUSH_INTERVAL)
            .withDescription("How often a shard with pending rows appends them to its WAL, at most (see"
                    + " 'sink.wal.max-appends-per-second' for subtasks with many shards); must be positive.");

    public static final ConfigOption<Integer> SINK_WAL_MAX_APPENDS_PER_SECOND = ConfigOptions.key(
                    "sink.wal.max-appends-per-second")
            .intType()
            .defaultValue(ShardWriterConfig.DEFAULT_WAL_MAX_APPENDS_PER_SECOND)
            .withDescription("The most WAL appends a second the flush ticks of one writer subtask start, over all"
                    + " its shards: a subtask holding more shards than this allows at 'sink.flush-interval' appends"
                    + " each shard every (shards / this) seconds instead, so that its PUTs stay bounded whatever the"
                    + " bucket count. Appends for a full WAL buffer, a frozen memtable or a checkpoint are not held"
                    + " back; must be positive.");

    public static final ConfigOption<MemorySize> SINK_WAL_MAX_BUFFER_SIZE = ConfigOptions.key(
                    "sink.wal.max-buffer-size")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_WAL_MAX_BUFFER_BYTES))
            .withDescription("Pending bytes of a shard that trigger a WAL append before the next tick; at most"
                    + " 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<MemorySize> SINK_MEMTABLE_MAX_SIZE = ConfigOptions.key("sink.memtable.max-size")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_BYTES))
            .withDescription("Memtable size at which it is frozen and written as an SSTable." + UNSET_DERIVED);

    public static final ConfigOption<Long> SINK_MEMTABLE_MAX_ROWS = ConfigOptions.key("sink.memtable.max-rows")
            .longType()
            .defaultValue(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS)
            .withDescription("Memtable row count at which it is frozen and written as an SSTable.");

    public static final ConfigOption<MemorySize> SINK_MAX_UNFLUSHED_BYTES = ConfigOptions.key(
                    "sink.max-unflushed-bytes")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_MAX_UNFLUSHED_BYTES))
            .withDescription("Memory per shard held in memtables not yet in SSTables above which the writer"
                    + " backpressures; at least 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<Duration> SINK_MEMTABLE_MAX_AGE = ConfigOptions.key("sink.memtable.max-age")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_MEMTABLE_MAX_AGE)
            .withDescription("At a checkpoint, memtables holding rows older than this are written as SSTables so"
                    + " the checkpoint publishes them: rows are visible to readers of published data within about"
                    + " this age plus one checkpoint interval. 0 publishes everything at every checkpoint (one"
                    + " SSTable per shard per checkpoint).");

    public static final ConfigOption<Boolean> SINK_COMPACTION_ENABLED = ConfigOptions.key("sink.compaction.enabled")
            .booleanType()
            .defaultValue(ShardWriterConfig.DEFAULT_COMPACTION)
            .withDescription("One writer subtask merges published SSTables into the Lance base table after completed"
                    + " checkpoints, without blocking the writers; readers that know nothing of MemWAL then see the"
                    + " rows, and reads merge fewer SSTables.");

    public static final ConfigOption<Duration> SINK_COMPACTION_KEEP_MERGED_FOR = ConfigOptions.key(
                    "sink.compaction.keep-merged-for")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_KEEP_MERGED_FOR)
            .withDescription("How long a shard's manifest keeps listing an SSTable after its writer saw it merged"
                    + " into the base table. Readers that open the base table before they read the shard manifests"
                    + " (LanceDB's default read, and a LanceDB table handle kept open) see every row as long as"
                    + " their read, or their handle's age, stays below this; 0 drops merged SSTables at the"
                    + " writer's next manifest update. Each second adds about one listed SSTable per shard at one"
                    + " checkpoint a second.");

    public static final ConfigOption<Boolean> SINK_GC_ENABLED = ConfigOptions.key("sink.gc.enabled")
            .booleanType()
            .defaultValue(ShardWriterConfig.DEFAULT_GARBAGE_COLLECTION)
            .withDescription("One writer subtask removes WAL entries, manifest versions, SSTable folders and records"
                    + " that no live manifest and no checkpoint younger than 'sink.gc.retention' can need.");

    public static final ConfigOption<Duration> SINK_GC_RETENTION = ConfigOptions.key("sink.gc.retention")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_GC_RETENTION)
            .withDescription("How long garbage collection keeps history: restoring a checkpoint or savepoint older"
                    + " than this fails, naming the retention, and so does a bounded scan (SELECT) of the table"
                    + " that runs longer than this, restarts included.");

    public static final ConfigOption<Duration> SINK_GC_CONSUMER_EXPIRATION = ConfigOptions.key(
                    "sink.gc.consumer-expiration")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_GC_CONSUMER_EXPIRATION)
            .withDescription("How long garbage collection keeps, even past 'sink.gc.retention', what a continuous"
                    + " read with a 'scan.consumer-id' still needs, counted from the read's last completed"
                    + " checkpoint; an older consumer record is ignored and removed, and the read fails once"
                    + " what it needs is gone. Must be positive.");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_INTERVAL = ConfigOptions.key(
                    "sink.maintenance.interval")
            .durationType()
            .defaultValue(ShardWriterConfig.DEFAULT_MAINTENANCE_INTERVAL)
            .withDescription("At most one maintenance run (compaction, then garbage collection) starts per this"
                    + " interval, after a completed checkpoint. A compaction run starts no generation's merge"
                    + " after this long (at least 10 s); the rest waits for the next run.");

    public static final ConfigOption<MemorySize> SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK = ConfigOptions.key(
                    "sink.max-unflushed-bytes-per-subtask")
            .memoryType()
            .defaultValue(new MemorySize(ShardWriterConfig.DEFAULT_MAX_UNFLUSHED_BYTES_PER_SUBTASK))
            .withDescription("The same summed over the shards of one writer subtask; above it the writer freezes"
                    + " and flushes its largest shards first. At least 'sink.memtable.max-size'." + UNSET_DERIVED);

    public static final ConfigOption<MemorySize> SINK_MAX_OFF_HEAP_BYTES_PER_SUBTASK = ConfigOptions.key(
                    "sink.max-off-heap-bytes-per-subtask")
            .memoryType()
            .noDefaultValue()
            .withDescription("Cap of a writer subtask's Arrow memory (memtables, SSTable writes, replay), taken"
                    + " from the slot's managed memory (and task off-heap memory, if any) and checked at start"
                    + " against what the slot gives. Unset: what the slot gives less headroom for lance-core's"
                    + " native memory, or 'sink.max-unflushed-bytes-per-subtask' + 'sink.memtable.max-size' + 2 ×"
                    + " 'sink.wal.max-buffer-size' when the unflushed budget is set or in local execution (1168"
                    + " MiB with the defaults). Must exceed 'sink.max-unflushed-bytes-per-subtask'.");

    public static final ConfigOption<Integer> SINK_PARALLELISM = ConfigOptions.key("sink.parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("Parallelism of the shard writer; the job's default when unset.");

    public static final ConfigOption<Integer> SINK_IO_THREADS = ConfigOptions.key("sink.io-threads")
            .intType()
            .defaultValue(4)
            .withDescription(
                    "Object-store I/O threads per writer subtask; also how many shards a subtask restores at once after a failover.");

    public static final ConfigOption<String> S3_ENDPOINT = ConfigOptions.key("s3.endpoint")
            .stringType()
            .noDefaultValue()
            .withDescription("Endpoint of an S3-compatible server; AWS when unset.");

    public static final ConfigOption<String> S3_REGION = ConfigOptions.key("s3.region")
            .stringType()
            .noDefaultValue()
            .withDescription("S3 region; the AWS default region chain when unset.");

    public static final ConfigOption<Boolean> S3_PATH_STYLE_ACCESS = ConfigOptions.key("s3.path-style-access")
            .booleanType()
            .defaultValue(false)
            .withDescription("Address buckets as http://host/bucket/key instead of virtual-hosted names.");

    public static final ConfigOption<String> S3_ACCESS_KEY = ConfigOptions.key("s3.access-key")
            .stringType()
            .noDefaultValue()
            .withDescription("Static access key id, a last resort: credentials come from the AWS"
                    + " default provider chain when unset. Needs 's3.secret-key'.");

    public static final ConfigOption<String> S3_SECRET_KEY = ConfigOptions.key("s3.secret-key")
            .stringType()
            .noDefaultValue()
            .withDescription("Static secret access key, a last resort; never logged. Needs" + " 's3.access-key'.");

    public static final ConfigOption<String> S3_CHECKSUM_MODE = ConfigOptions.key("s3.checksum-mode")
            .stringType()
            .defaultValue("when_supported")
            .withDescription("Request checksums and response validation:"
                    + " when_supported or when_required (some S3-compatible servers need when_required).");

    public static final ConfigOption<String> WAL_SCHEMA_PROFILE = ConfigOptions.key("wal.schema-profile")
            .stringType()
            .defaultValue("spec")
            .withDescription("WAL entry schema: spec (MemWAL specification, with deletes) or"
                    + " lance-java-7.0 (what lance-core 7.0.0 replays; no deletes).");

    public static final ConfigOption<String> SCAN_MODE = ConfigOptions.key("scan.mode")
            .stringType()
            .defaultValue("committed")
            .withDescription("What a SELECT reads: committed (the base table and published"
                    + " SSTables, as Lance readers see it) or latest (also every durable WAL entry).");

    public static final ConfigOption<String> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup-mode")
            .stringType()
            .noDefaultValue()
            .withDescription("Where a SELECT in streaming runtime mode starts: initial (the snapshot as inserts, then"
                    + " every generation published after it as an upsert changelog; the default), latest (only"
                    + " generations published after the job started) or snapshot (the bounded scan). In batch"
                    + " runtime mode a SELECT is always the bounded scan. A continuous read follows published"
                    + " generations, so it needs scan.mode committed.");

    public static final ConfigOption<Duration> SCAN_DISCOVERY_INTERVAL = ConfigOptions.key("scan.discovery-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withDescription("How often a continuous read looks at the shards' manifests for new generations (one"
                    + " small GET per shard, plus one per manifest version published meanwhile); must be"
                    + " positive.");

    public static final ConfigOption<String> SCAN_CONSUMER_ID = ConfigOptions.key("scan.consumer-id")
            .stringType()
            .noDefaultValue()
            .withDescription("A name for a continuous read: at each completed checkpoint it records under"
                    + " _walsink/consumers/ what it still needs, and garbage collection keeps that beyond"
                    + " 'sink.gc.retention' for 'sink.gc.consumer-expiration'. 1 to 100 letters, digits, '.', '_'"
                    + " or '-', starting with a letter or digit; one running read per id.");

    public static final ConfigOption<Long> SCAN_SPLIT_BASE_ROWS = ConfigOptions.key("scan.split.base-rows")
            .longType()
            .defaultValue(TableScan.DEFAULT_SPLIT_BASE_ROWS)
            .withDescription("Base table rows per split of a bounded SELECT: whole Lance fragments are grouped up"
                    + " to this many rows, so the scan runs in parallel beyond the bucket count; each bucket's"
                    + " rows not yet compacted into the base come as one more split. Each split reads the keys"
                    + " of every shard's uncompacted rows, so much smaller splits repeat that work. Must be"
                    + " positive.");

    public static final ConfigOption<String> SCAN_FULL_TEXT_COLUMN = ConfigOptions.key("scan.full-text.column")
            .stringType()
            .noDefaultValue()
            .withDescription("With 'scan.full-text.query': a SELECT returns only the live rows of the committed table"
                    + " that best match the query in this column (BM25, through the table's maintained INVERTED"
                    + " index on it), best first, as a bounded read whatever 'scan.startup-mode' says. Meant as a"
                    + " per-query hint: /*+ OPTIONS('scan.full-text.column' = 'body', 'scan.full-text.query' ="
                    + " 'zebra') */.");

    public static final ConfigOption<String> SCAN_FULL_TEXT_QUERY = ConfigOptions.key("scan.full-text.query")
            .stringType()
            .noDefaultValue()
            .withDescription("The words a full-text SELECT matches ('scan.full-text.column').");

    public static final ConfigOption<Integer> SCAN_FULL_TEXT_LIMIT = ConfigOptions.key("scan.full-text.limit")
            .intType()
            .defaultValue(10)
            .withDescription("How many of the best matches a full-text SELECT returns; positive.");

    public static final ConfigOption<String> LOOKUP_CACHE = ConfigOptions.key("lookup.cache")
            .stringType()
            .defaultValue("NONE")
            .withDescription("What a lookup join on the table caches: NONE (every probe reads the table), PARTIAL"
                    + " (Flink's cache of looked-up keys, per join subtask; needs a 'lookup.partial-cache.*' bound) or"
                    + " FULL (each join subtask holds the whole table's live rows, loaded from one snapshot and"
                    + " reloaded as 'lookup.full-cache.*' says).");

    public static final ConfigOption<Duration> LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_ACCESS = ConfigOptions.key(
                    "lookup.partial-cache.expire-after-access")
            .durationType()
            .noDefaultValue()
            .withDescription("PARTIAL cache: a key not probed for this long is dropped.");

    public static final ConfigOption<Duration> LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_WRITE = ConfigOptions.key(
                    "lookup.partial-cache.expire-after-write")
            .durationType()
            .noDefaultValue()
            .withDescription("PARTIAL cache: a key is read again this long after it was read: the most a"
                    + " cached row lags behind the table (docs/guarantees.md#lookup-joins).");

    public static final ConfigOption<Long> LOOKUP_PARTIAL_CACHE_MAX_ROWS = ConfigOptions.key(
                    "lookup.partial-cache.max-rows")
            .longType()
            .noDefaultValue()
            .withDescription("PARTIAL cache: the most keys a join subtask keeps.");

    public static final ConfigOption<Boolean> LOOKUP_PARTIAL_CACHE_CACHE_MISSING_KEY = ConfigOptions.key(
                    "lookup.partial-cache.cache-missing-key")
            .booleanType()
            .defaultValue(true)
            .withDescription("PARTIAL cache: whether a key without a row is cached too (as no row).");

    public static final ConfigOption<String> LOOKUP_FULL_CACHE_RELOAD_STRATEGY = ConfigOptions.key(
                    LookupOptions.FULL_CACHE_RELOAD_STRATEGY.key())
            .stringType()
            .defaultValue(
                    LookupOptions.FULL_CACHE_RELOAD_STRATEGY.defaultValue().name())
            .withDescription("FULL cache: when the table is loaded again, PERIODIC (every"
                    + " 'lookup.full-cache.periodic-reload.interval') or TIMED (at"
                    + " 'lookup.full-cache.timed-reload.iso-time' every 'lookup.full-cache.timed-reload.interval-in-days'"
                    + " days). Probes use the previous load until the next one is complete.");

    public static final ConfigOption<Duration> LOOKUP_FULL_CACHE_PERIODIC_RELOAD_INTERVAL = ConfigOptions.key(
                    LookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL.key())
            .durationType()
            .noDefaultValue()
            .withDescription("FULL cache, PERIODIC: how often the table is loaded again; required, positive. The most"
                    + " a cached row lags behind the table is about this plus one load.");

    public static final ConfigOption<String> LOOKUP_FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE = ConfigOptions.key(
                    LookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE.key())
            .stringType()
            .defaultValue(LookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE
                    .defaultValue()
                    .name())
            .withDescription("FULL cache, PERIODIC: FIXED_DELAY (the interval counts from the end of a load) or"
                    + " FIXED_RATE (from its start).");

    public static final ConfigOption<String> LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME = ConfigOptions.key(
                    LookupOptions.FULL_CACHE_TIMED_RELOAD_ISO_TIME.key())
            .stringType()
            .noDefaultValue()
            .withDescription("FULL cache, TIMED: the time of day of the reload, ISO-8601 (10:15, 10:15:30,"
                    + " 10:15:30+01:00; without an offset: the join subtask's time zone); required.");

    public static final ConfigOption<Integer> LOOKUP_FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS = ConfigOptions.key(
                    LookupOptions.FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS.key())
            .intType()
            .defaultValue(LookupOptions.FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS.defaultValue())
            .withDescription("FULL cache, TIMED: days between reloads; positive.");

    public static final ConfigOption<Integer> LOOKUP_MAX_RETRIES = ConfigOptions.key("lookup.max-retries")
            .intType()
            .defaultValue(3)
            .withDescription("How often a failed lookup, or a FULL cache's failed load of one bucket, is tried again,"
                    + " everything it opened reopened, before the job fails.");

    public static final ConfigOption<Duration> LOOKUP_REFRESH_INTERVAL = ConfigOptions.key("lookup.refresh-interval")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withDescription("How long a lookup reuses what it opened (the key's shard at its manifest version, the"
                    + " base table version) before it checks for newer versions: 0 checks at every probe that"
                    + " reaches the table (two object existence checks and a base version check; on S3 a few"
                    + " requests), a longer interval saves those and lets rows lag by up to it.");

    public static final ConfigOption<Integer> VECTOR_SEARCH_EF = ConfigOptions.key("vector-search.ef")
            .intType()
            .defaultValue(0)
            .withDescription("VECTOR_SEARCH on the table: HNSW's search breadth in the base table's vector index; 0"
                    + " keeps lance-core's default, 1.5 x top_k, which finds about three quarters of the ten nearest"
                    + " of 100,000 random 128-d vectors; 100 found more than nine tenths (docs/benchmarks.md).");

    public static final ConfigOption<Integer> VECTOR_SEARCH_NPROBES = ConfigOptions.key("vector-search.nprobes")
            .intType()
            .defaultValue(0)
            .withDescription("VECTOR_SEARCH on the table: IVF partitions of the base table's vector index probed;"
                    + " 0 keeps lance-core's default.");

    public static final ConfigOption<Integer> VECTOR_SEARCH_REFINE_FACTOR = ConfigOptions.key(
                    "vector-search.refine-factor")
            .intType()
            .defaultValue(0)
            .withDescription("VECTOR_SEARCH on the table: re-rank top_k x this many of the base index's answers by"
                    + " their exact distance (for quantised indexes); 0 re-ranks none. Rows above the base table"
                    + " are always compared exactly.");

    public static final ConfigOption<Duration> VECTOR_SEARCH_REFRESH_INTERVAL = ConfigOptions.key(
                    "vector-search.refresh-interval")
            .durationType()
            .defaultValue(Duration.ZERO)
            .withDescription("VECTOR_SEARCH on the table: how long a search subtask answers from the committed"
                    + " snapshot it read (the base table version and the SSTables above it) before it checks for a"
                    + " newer one: 0 checks at every search (a few object-store requests; the SSTables are read again"
                    + " only when a checkpoint published new ones), a longer interval lets answers lag by up to it.");

    public static List<ConfigOption<?>> required() {
        return List.of(PATH);
    }

    /** In the order docs/configuration.md lists them. */
    public static List<ConfigOption<?>> optional() {
        return List.of(
                BUCKETS,
                SINK_FLUSH_INTERVAL,
                SINK_WAL_MAX_APPENDS_PER_SECOND,
                SINK_WAL_MAX_BUFFER_SIZE,
                SINK_MEMTABLE_MAX_SIZE,
                SINK_MEMTABLE_MAX_ROWS,
                SINK_MEMTABLE_MAX_AGE,
                SINK_COMPACTION_ENABLED,
                SINK_COMPACTION_KEEP_MERGED_FOR,
                SINK_GC_ENABLED,
                SINK_GC_RETENTION,
                SINK_GC_CONSUMER_EXPIRATION,
                SINK_MAINTENANCE_INTERVAL,
                SINK_MAX_UNFLUSHED_BYTES,
                SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK,
                SINK_MAX_OFF_HEAP_BYTES_PER_SUBTASK,
                SINK_PARALLELISM,
                SINK_IO_THREADS,
                S3_ENDPOINT,
                S3_REGION,
                S3_PATH_STYLE_ACCESS,
                S3_ACCESS_KEY,
                S3_SECRET_KEY,
                S3_CHECKSUM_MODE,
                WAL_SCHEMA_PROFILE,
                SCAN_MODE,
                SCAN_STARTUP_MODE,
                SCAN_DISCOVERY_INTERVAL,
                SCAN_CONSUMER_ID,
                SCAN_SPLIT_BASE_ROWS,
                SCAN_FULL_TEXT_COLUMN,
                SCAN_FULL_TEXT_QUERY,
                SCAN_FULL_TEXT_LIMIT,
                LOOKUP_CACHE,
                LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
                LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
                LOOKUP_PARTIAL_CACHE_MAX_ROWS,
                LOOKUP_PARTIAL_CACHE_CACHE_MISSING_KEY,
                LOOKUP_FULL_CACHE_RELOAD_STRATEGY,
                LOOKUP_FULL_CACHE_PERIODIC_RELOAD_INTERVAL,
                LOOKUP_FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE,
                LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME,
                LOOKUP_FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS,
                LOOKUP_MAX_RETRIES,
                LOOKUP_REFRESH_INTERVAL,
                VECTOR_SEARCH_EF,
                VECTOR_SEARCH_NPROBES,
                VECTOR_SEARCH_REFINE_FACTOR,
                VECTOR_SEARCH_REFRESH_INTERVAL);
    }
}
