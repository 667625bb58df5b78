package io.walsink.table;

import io.walsink.annotation.PublicEvolving;
import io.walsink.flink.SinkOptions;
import io.walsink.table.scan.TableScan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions;

/**
 * The options of the {@code 'connector' = 'walsink'} tables beyond the writer's own {@code sink.*}
 * options, which {@link io.walsink.flink.SinkOptions} declares for SQL and DataStream alike.
 * docs/configuration.md is rendered from both (a test fails when they drift). Values are checked by
 * {@link WalSinkTableConfig}.
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

    public static final ConfigOption<Long> SCAN_VERSION = ConfigOptions.key("scan.version")
            .longType()
            .noDefaultValue()
            .withDescription("Time travel: a bounded SELECT reads this base table version, the rows compaction had"
                    + " merged by then, as LanceDB's checkout(version) reads it without its LSM read. Versions"
                    + " superseded longer ago than 'sink.gc.retention' are removed unless a tag names them.");

    public static final ConfigOption<String> SCAN_TAG = ConfigOptions.key("scan.tag")
            .stringType()
            .noDefaultValue()
            .withDescription("Time travel: as 'scan.version', the base table version this tag names"
                    + " (CALL <catalog>.sys.create_tag, walsink tag create, or LanceDB's tags).");

    public static final ConfigOption<String> SCAN_TIMESTAMP = ConfigOptions.key("scan.timestamp")
            .stringType()
            .noDefaultValue()
            .withDescription("Time travel: as 'scan.version', the latest base table version committed at or before"
                    + " this instant, given as epoch milliseconds or an ISO-8601 date-time with offset"
                    + " (2026-01-01T00:00:00Z); what FOR SYSTEM_TIME AS OF reads on a catalog's table. One of"
                    + " 'scan.version', 'scan.tag' and 'scan.timestamp'.");

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
        List<ConfigOption<?>> options = new ArrayList<>();
        options.add(BUCKETS);
        options.addAll(SinkOptions.all());
        options.addAll(List.of(
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
                SCAN_VERSION,
                SCAN_TAG,
                SCAN_TIMESTAMP,
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
                VECTOR_SEARCH_REFRESH_INTERVAL));
        return options;
    }
}
