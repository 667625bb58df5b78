package io.walsink.table;

import static io.walsink.table.WalSinkTableOptions.BUCKETS;
import static io.walsink.table.WalSinkTableOptions.PATH;
import static io.walsink.table.WalSinkTableOptions.S3_ACCESS_KEY;
import static io.walsink.table.WalSinkTableOptions.S3_CHECKSUM_MODE;
import static io.walsink.table.WalSinkTableOptions.S3_ENDPOINT;
import static io.walsink.table.WalSinkTableOptions.S3_PATH_STYLE_ACCESS;
import static io.walsink.table.WalSinkTableOptions.S3_REGION;
import static io.walsink.table.WalSinkTableOptions.S3_SECRET_KEY;
import static io.walsink.table.WalSinkTableOptions.SCAN_FULL_TEXT_COLUMN;
import static io.walsink.table.WalSinkTableOptions.SCAN_FULL_TEXT_LIMIT;
import static io.walsink.table.WalSinkTableOptions.SCAN_FULL_TEXT_QUERY;
import static io.walsink.table.WalSinkTableOptions.SCAN_MODE;
import static io.walsink.table.WalSinkTableOptions.SCAN_SPLIT_BASE_ROWS;
import static io.walsink.table.WalSinkTableOptions.SINK_COMPACTION_ENABLED;
import static io.walsink.table.WalSinkTableOptions.SINK_COMPACTION_KEEP_MERGED_FOR;
import static io.walsink.table.WalSinkTableOptions.SINK_FLUSH_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.SINK_GC_CONSUMER_EXPIRATION;
import static io.walsink.table.WalSinkTableOptions.SINK_GC_ENABLED;
import static io.walsink.table.WalSinkTableOptions.SINK_GC_RETENTION;
import static io.walsink.table.WalSinkTableOptions.SINK_IO_THREADS;
import static io.walsink.table.WalSinkTableOptions.SINK_MAINTENANCE_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.SINK_MAX_OFF_HEAP_BYTES_PER_SUBTASK;
import static io.walsink.table.WalSinkTableOptions.SINK_MAX_UNFLUSHED_BYTES;
import static io.walsink.table.WalSinkTableOptions.SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK;
import static io.walsink.table.WalSinkTableOptions.SINK_MEMTABLE_MAX_AGE;
import static io.walsink.table.WalSinkTableOptions.SINK_MEMTABLE_MAX_ROWS;
import static io.walsink.table.WalSinkTableOptions.SINK_MEMTABLE_MAX_SIZE;
import static io.walsink.table.WalSinkTableOptions.SINK_PARALLELISM;
import static io.walsink.table.WalSinkTableOptions.SINK_WAL_MAX_APPENDS_PER_SECOND;
import static io.walsink.table.WalSinkTableOptions.SINK_WAL_MAX_BUFFER_SIZE;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_EF;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_NPROBES;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_REFINE_FACTOR;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_REFRESH_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.WAL_SCHEMA_PROFILE;

import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import io.walsink.table.lookup.LookupConfig;
import io.walsink.table.search.FullTextScan;
import io.walsink.table.search.VectorSearchConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;

/**
 * The options of one walsink table, parsed and checked: every invalid value fails with a
 * {@link ValidationException} naming its option, while the statement is planned.
 *
 * @param buckets null unless set (only needed to create the table)
 * @param sinkParallelism null for the job's default
 */
record WalSinkTableConfig(
        String path,
        Integer buckets,
        ShardWriterConfig writer,
        Integer sinkParallelism,
        int ioThreads,
        S3Options s3,
        WalSchemaProfile schemaProfile,
        ReadMode scanMode,
        long scanSplitBaseRows,
        LookupConfig lookup,
        VectorSearchConfig vectorSearch,
        Optional<FullTextScan> fullText) {

    public static WalSinkTableConfig from(ReadableConfig options) {
        String path = options.get(PATH);
        try {
            StorageLocation.parse(path);
        } catch (IllegalArgumentException e) {
            throw invalid(PATH, e.getMessage());
        }
        Integer buckets = options.get(BUCKETS);
        if (buckets != null && (buckets < TableSharding.MIN_BUCKETS || buckets > TableSharding.MAX_BUCKETS)) {
            throw invalid(
                    BUCKETS,
                    "must be in [" + TableSharding.MIN_BUCKETS + ", " + TableSharding.MAX_BUCKETS + "], was "
                            + buckets);
        }
        Duration flush = options.get(SINK_FLUSH_INTERVAL);
        if (flush.isZero() || flush.isNegative()) {
            throw invalid(SINK_FLUSH_INTERVAL, "must be positive for durable writes, was " + flush);
        }
        int appendsPerSecond =
                (int) positive(SINK_WAL_MAX_APPENDS_PER_SECOND, options.get(SINK_WAL_MAX_APPENDS_PER_SECOND));
        long walBuffer = positive(
                SINK_WAL_MAX_BUFFER_SIZE, options.get(SINK_WAL_MAX_BUFFER_SIZE).getBytes());
        long memtableBytes = positive(
                SINK_MEMTABLE_MAX_SIZE, options.get(SINK_MEMTABLE_MAX_SIZE).getBytes());
        long memtableRows = positive(SINK_MEMTABLE_MAX_ROWS, options.get(SINK_MEMTABLE_MAX_ROWS));
        long unflushed = positive(
                SINK_MAX_UNFLUSHED_BYTES, options.get(SINK_MAX_UNFLUSHED_BYTES).getBytes());
        long unflushedPerSubtask = positive(
                SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK,
                options.get(SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK).getBytes());
        long offHeapPerSubtask = options.getOptional(SINK_MAX_OFF_HEAP_BYTES_PER_SUBTASK)
                .map(size -> positive(SINK_MAX_OFF_HEAP_BYTES_PER_SUBTASK, size.getBytes()))
                .orElse(0L); // derived
        Integer parallelism = options.get(SINK_PARALLELISM);
        if (parallelism != null) {
            positive(SINK_PARALLELISM, parallelism);
        }
        int ioThreads = (int) positive(SINK_IO_THREADS, options.get(SINK_IO_THREADS));
        ShardWriterConfig writer;
        try {
            // The budgets as a whole; its messages name the options involved.
            ShardWriterConfig.Builder builder = ShardWriterConfig.builder()
                    .flushInterval(flush)
                    .walMaxAppendsPerSecond(appendsPerSecond)
                    .memtableMaxRows(memtableRows)
                    .maxOffHeapBytesPerSubtask(offHeapPerSubtask);
            // Memory sizes left out of the WITH clause are derived from the slot's memory when the
            // writer starts (docs/configuration.md#memory): only the ones given count as explicit.
            if (options.getOptional(SINK_WAL_MAX_BUFFER_SIZE).isPresent()) {
                builder.walMaxBufferBytes(walBuffer);
            }
            if (options.getOptional(SINK_MEMTABLE_MAX_SIZE).isPresent()) {
                builder.memtableMaxBytes(memtableBytes);
            }
            if (options.getOptional(SINK_MAX_UNFLUSHED_BYTES).isPresent()) {
                builder.maxUnflushedBytes(unflushed);
            }
            if (options.getOptional(SINK_MAX_UNFLUSHED_BYTES_PER_SUBTASK).isPresent()) {
                builder.maxUnflushedBytesPerSubtask(unflushedPerSubtask);
            }
            writer = builder.memtableMaxAge(options.get(SINK_MEMTABLE_MAX_AGE))
                    .compaction(options.get(SINK_COMPACTION_ENABLED))
                    .keepMergedFor(options.get(SINK_COMPACTION_KEEP_MERGED_FOR))
                    .garbageCollection(options.get(SINK_GC_ENABLED))
                    .gcRetention(options.get(SINK_GC_RETENTION))
                    .gcConsumerExpiration(options.get(SINK_GC_CONSUMER_EXPIRATION))
                    .maintenanceInterval(options.get(SINK_MAINTENANCE_INTERVAL))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
        return new WalSinkTableConfig(
                path,
                buckets,
                writer,
                parallelism,
                ioThreads,
                s3(options),
                schemaProfile(options),
                scanMode(options),
                positive(SCAN_SPLIT_BASE_ROWS, options.get(SCAN_SPLIT_BASE_ROWS)),
                LookupOptionsCheck.lookup(options),
                vectorSearch(options),
                fullText(options));
    }

    private static Optional<FullTextScan> fullText(ReadableConfig options) {
        Optional<String> column = options.getOptional(SCAN_FULL_TEXT_COLUMN);
        Optional<String> query = options.getOptional(SCAN_FULL_TEXT_QUERY);
        if (column.isEmpty() && query.isEmpty()) {
            return Optional.empty();
        }
        if (column.isEmpty() || query.isEmpty()) {
            throw new ValidationException("A full-text SELECT needs both 'scan.full-text.column' and"
                    + " 'scan.full-text.query'; only '"
                    + (column.isEmpty() ? "scan.full-text.query" : "scan.full-text.column")
                    + "' is set");
        }
        try {
            return Optional.of(new FullTextScan(column.get(), query.get(), options.get(SCAN_FULL_TEXT_LIMIT)));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }

    private static VectorSearchConfig vectorSearch(ReadableConfig options) {
        try {
            return new VectorSearchConfig(
                    options.get(VECTOR_SEARCH_EF),
                    options.get(VECTOR_SEARCH_NPROBES),
                    options.get(VECTOR_SEARCH_REFINE_FACTOR),
                    options.get(VECTOR_SEARCH_REFRESH_INTERVAL));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
    }

    /** The table location as lance-core expects it. */
    public String lanceUri() {
        return StorageLocation.parse(path).lanceUri();
    }

    /** Object-store options for lance-core, derived from the S3 settings. */
    public Map<String, String> lanceStorageOptions() {
        return LanceStorageOptions.of(StorageLocation.parse(path), s3);
    }

    private static S3Options s3(ReadableConfig options) {
        S3Options.Builder s3 =
                S3Options.builder().region(options.get(S3_REGION)).pathStyleAccess(options.get(S3_PATH_STYLE_ACCESS));
        String endpoint = options.get(S3_ENDPOINT);
        if (endpoint != null) {
            s3.endpoint(endpoint(endpoint));
        }
        String accessKey = options.get(S3_ACCESS_KEY);
        String secretKey = options.get(S3_SECRET_KEY);
        if ((accessKey == null) != (secretKey == null)) {
            throw new ValidationException("'" + S3_ACCESS_KEY.key() + "' and '" + S3_SECRET_KEY.key()
                    + "' go together: set both or neither (neither uses the AWS default credential chain)");
        }
        if (accessKey != null) {
            s3.staticCredentials(accessKey, secretKey);
        }
        switch (options.get(S3_CHECKSUM_MODE).toLowerCase(Locale.ROOT)) {
            case "when_supported" -> s3.requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED);
            case "when_required" -> s3.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
            default -> throw invalid(
                    S3_CHECKSUM_MODE,
                    "must be when_supported or when_required, was '" + options.get(S3_CHECKSUM_MODE) + "'");
        }
        return s3.build();
    }

    private static URI endpoint(String endpoint) {
        try {
            URI uri = new URI(endpoint);
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw invalid(
                        S3_ENDPOINT, "must be an absolute URL such as http://localhost:9000, was '" + endpoint + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw invalid(S3_ENDPOINT, "is not a URL: " + e.getMessage());
        }
    }

    private static WalSchemaProfile schemaProfile(ReadableConfig options) {
        try {
            return WalSchemaProfile.parse(options.get(WAL_SCHEMA_PROFILE));
        } catch (IllegalArgumentException e) {
            throw invalid(WAL_SCHEMA_PROFILE, e.getMessage());
        }
    }

    private static ReadMode scanMode(ReadableConfig options) {
        return switch (options.get(SCAN_MODE).toLowerCase(Locale.ROOT)) {
            case "committed" -> ReadMode.COMMITTED;
            case "latest" -> ReadMode.LATEST;
            default -> throw invalid(SCAN_MODE, "must be committed or latest, was '" + options.get(SCAN_MODE) + "'");
        };
    }

    static long positive(ConfigOption<?> option, long value) {
        if (value <= 0) {
            throw invalid(option, "must be positive, was " + value);
        }
        return value;
    }

    static ValidationException invalid(ConfigOption<?> option, String problem) {
        return new ValidationException("Invalid walsink option '" + option.key() + "': " + problem);
    }

    @Override
    public String toString() {
        // S3Options hides the secret; the rest holds none.
        return "WalSinkTableConfig[path=" + path + ", buckets=" + buckets + ", writer=" + writer
                + ", sinkParallelism=" + sinkParallelism + ", ioThreads=" + ioThreads + ", s3=" + s3
                + ", schemaProfile=" + schemaProfile + ", scanMode=" + scanMode + ", scanSplitBaseRows="
                + scanSplitBaseRows + ", lookup=" + lookup + ", vectorSearch=" + vectorSearch + ", fullText=" + fullText
                + "]";
    }
}
