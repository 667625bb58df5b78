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
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_EF;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_NPROBES;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_REFINE_FACTOR;
import static io.walsink.table.WalSinkTableOptions.VECTOR_SEARCH_REFRESH_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.WAL_SCHEMA_PROFILE;

import io.walsink.annotation.Internal;
import io.walsink.flink.SinkOptions;
import io.walsink.flink.internal.memory.SinkSettings;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import io.walsink.table.lookup.LookupConfig;
import io.walsink.table.search.FullTextScan;
import io.walsink.table.search.VectorSearchConfig;
import java.net.URI;
import java.net.URISyntaxException;
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
 * @param sink the {@link SinkOptions} set, checked
 */
@Internal
public record WalSinkTableConfig(
        String path,
        Integer buckets,
        SinkSettings sink,
        S3Options s3,
        WalSchemaProfile schemaProfile,
        ReadMode scanMode,
        long scanSplitBaseRows,
        LookupConfig lookup,
        VectorSearchConfig vectorSearch,
        Optional<FullTextScan> fullText,
        Optional<TimeTravel> timeTravel) {

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
        SinkSettings sink;
        try {
            sink = SinkSettings.from(options);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
        return new WalSinkTableConfig(
                path,
                buckets,
                sink,
                s3(options),
                schemaProfile(options),
                scanMode(options),
                positive(SCAN_SPLIT_BASE_ROWS, options.get(SCAN_SPLIT_BASE_ROWS)),
                LookupOptionsCheck.lookup(options),
                vectorSearch(options),
                fullText(options),
                TimeTravel.from(options));
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

    /** The sink options set, for the DataStream builder. */
    ReadableConfig sinkOptions() {
        return sink.options();
    }

    /** The writer's parallelism; null for the job's default. */
    Integer sinkParallelism() {
        return sink.isSet(SinkOptions.PARALLELISM) ? sink.get(SinkOptions.PARALLELISM) : null;
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
        return "WalSinkTableConfig[path=" + path + ", buckets=" + buckets + ", sink=" + sink + ", s3=" + s3
                + ", schemaProfile=" + schemaProfile + ", scanMode=" + scanMode + ", scanSplitBaseRows="
                + scanSplitBaseRows + ", lookup=" + lookup + ", vectorSearch=" + vectorSearch + ", fullText=" + fullText
                + "]";
    }
}
