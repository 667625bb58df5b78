package io.walsink.table;

import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.read.ReadMode;
import io.walsink.table.lookup.FullCacheFormat;
import io.walsink.table.lookup.WalSinkLookupFunction;
import io.walsink.table.scan.TableScan;
import io.walsink.table.scan.WalTableScanSource;
import io.walsink.table.search.FullTextFormat;
import io.walsink.table.search.FullTextScan;
import io.walsink.table.search.WalSinkVectorSearchFunction;
import io.walsink.table.stream.ChangeStream;
import io.walsink.table.stream.WalTableChangeSource;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.InputFormatProvider;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.VectorSearchTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.FullCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.search.VectorSearchFunctionProvider;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The SQL source of a walsink table: a bounded scan of the table as of when the job runs, newest
 * row per key, deleted keys absent ({@code scan.mode}: published data only, or also the WAL
 * tail); in a streaming job, by default, that snapshot followed by every generation published
 * after it, as an upsert changelog ({@code scan.startup-mode}, {@link ChangeStream}). Projection
 * and LIMIT are pushed into the scan, and simple filters into the bounded scan's base table
 * reads ({@link #applyFilters}); Flink applies every filter after the scan as well.
 *
 * <p>With {@code scan.full-text.*} a SELECT is a bounded read of the best full-text matches
 * ({@link FullTextFormat}). As the dimension table of a lookup join it answers each probe with the newest committed row
 * of the probed key ({@link WalSinkLookupFunction}), or with FULL cache from the table's live rows
 * as of its last load ({@link FullCacheFormat}); keys other than the primary key are refused,
 * since only a primary key names one bucket and one row.
 */
final class WalSinkTableSource
        implements ScanTableSource,
                LookupTableSource,
                SupportsProjectionPushDown,
                SupportsLimitPushDown,
                SupportsFilterPushDown,
                VectorSearchTableSource {
    private final WalSinkTableConfig config;
    private final ContinuousReadConfig read;
    private final RowType declared;
    private final List<String> declaredKey;
    private RowType produced;
    private long limit = -1;
    /** A Lance predicate for the base table's scan, or null. */
    private String baseFilter;

    WalSinkTableSource(
            WalSinkTableConfig config, ContinuousReadConfig read, RowType declared, List<String> declaredKey) {
        this.config = config;
        this.read = read;
        this.declared = declared;
        this.declaredKey = List.copyOf(declaredKey);
        this.produced = declared;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        // A generation holds each key's newest row, not the one it replaced: upserts, no -U.
        return continuous() && !declaredKey.isEmpty() ? ChangelogMode.upsert() : ChangelogMode.insertOnly();
    }

    /** The version a time-travel read pins, checked now; null for a read of the current table. */
    private Long timeTravelVersion() {
        if (config.timeTravel().isEmpty()) {
            return null;
        }
        if (continuous() || config.fullText().isPresent()) {
            throw new ValidationException("'scan.version', 'scan.tag' and 'scan.timestamp' read one base table"
                    + " version: a bounded SELECT (not with 'scan.startup-mode' initial or latest), without"
                    + " 'scan.full-text.*'");
        }
        long version = config.timeTravel().get().resolve(config);
        TimeTravel.requireColumns(config, version, produced.getFieldNames());
        return version;
    }

    /** Whether a SELECT follows the table; a full-text SELECT never does. */
    private boolean continuous() {
        return read.continuous() && config.fullText().isEmpty();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        ExistingTable table = readableTable();
        if (config.fullText().isPresent()) {
            FullTextScan fullText = config.fullText().get();
            boolean indexed = MaintainedIndexes.declaredIn(config.path(), table.schema()).stream()
                    .anyMatch(i -> i.type() == MaintainedIndex.Type.INVERTED
                            && i.column().equals(fullText.column()));
            if (!indexed) {
                throw new ValidationException("A full-text SELECT on the walsink table at '" + config.path()
                        + "' needs a maintained INVERTED index on column '" + fullText.column()
                        + "' ('index.<name>.type' = 'INVERTED', declared when the table is created)");
            }
            return InputFormatProvider.of(new FullTextFormat(
                    config.path(), config.s3(), config.schemaProfile(), fullText, produced.getFieldNames()));
        }
        TableScan scan = new TableScan(
                config.path(),
                config.s3(),
                config.lanceStorageOptions(),
                config.schemaProfile(),
                config.scanMode(),
                produced.getFieldNames(),
                limit,
                config.scanSplitBaseRows(),
                continuous() ? null : baseFilter,
                timeTravelVersion());
        if (continuous()) {
            if (declaredKey.isEmpty() && !table.primaryKey().isEmpty()) {
                // Without the key the planner takes the changes for inserts and keeps every version.
                throw new ValidationException("A continuous read of the walsink table at '" + config.path()
                        + "' emits changes by primary key: declare PRIMARY KEY " + table.primaryKey()
                        + " NOT ENFORCED, or set 'scan.startup-mode' = 'snapshot' for a bounded read");
            }
            ChangeStream stream = new ChangeStream(
                    scan, read.startup(), read.discoveryInterval(), !declaredKey.isEmpty(), read.consumerId());
            return SourceProvider.of(new WalTableChangeSource(stream), 1);
        }
        // The job's parallelism: the splits follow the base table's size (see WalTableScanSource).
        return SourceProvider.of(new WalTableScanSource(scan));
    }

    /** The table at the path, checked against the declaration. */
    private ExistingTable readableTable() {
        ExistingTable table = ExistingTable.at(config)
                .orElseThrow(() -> new ValidationException("There is no walsink table at '" + config.path() + "'"));
        ColumnTypeCheck.requireReadable(declared, table.schema(), config.path());
        if (!declaredKey.isEmpty() && !declaredKey.equals(table.primaryKey())) {
            throw new ValidationException("The declared PRIMARY KEY " + declaredKey + " does not match the primary key "
                    + table.primaryKey() + " of the walsink table at '" + config.path() + "'");
        }
        return table;
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        ExistingTable table = readableTable();
        List<String> keys = new ArrayList<>();
        for (int[] key : context.getKeys()) {
            if (key.length != 1) {
                throw new ValidationException("A lookup join on the walsink table at '" + config.path()
                        + "' cannot look up by a nested field");
            }
            keys.add(produced.getFieldNames().get(key[0]));
        }
        if (table.primaryKey().isEmpty()
                || keys.size() != table.primaryKey().size()
                || !keys.containsAll(table.primaryKey())) {
            throw new ValidationException("A lookup join on the walsink table at '" + config.path()
                    + "' must join on exactly its primary key " + table.primaryKey() + " (each key column equal to"
                    + " a value of the probe side), but joins on " + keys
                    + ": only a primary key names one row, in one bucket");
        }
        if (config.lookup().fullCache() != null) {
            // The cache loader keys the rows itself, by the join's key columns of these rows.
            TableScan everyRow = new TableScan(
                    config.path(),
                    config.s3(),
                    config.lanceStorageOptions(),
                    config.schemaProfile(),
                    ReadMode.COMMITTED, // as a lookup without a cache reads
                    produced.getFieldNames(),
                    -1);
            return FullCachingLookupProvider.of(
                    InputFormatProvider.of(
                            new FullCacheFormat(everyRow, config.lookup().maxRetries())),
                    config.lookup().fullCache().trigger());
        }
        RowType keyType = new RowType(keys.stream()
                .map(k -> new RowType.RowField(k, produced.getTypeAt(produced.getFieldIndex(k))))
                .toList());
        WalSinkLookupFunction function = new WalSinkLookupFunction(
                config.path(),
                config.s3(),
                config.lanceStorageOptions(),
                keyType,
                produced.getFieldNames(),
                config.lookup());
        return config.lookup()
                .cache()
                .<LookupRuntimeProvider>map(cache -> PartialCachingLookupProvider.of(function, cache))
                .orElseGet(() -> LookupFunctionProvider.of(function));
    }

    /**
     * {@code VECTOR_SEARCH(TABLE t, DESCRIPTOR(column), query, top_k)}: the nearest live rows of the
     * committed table in one vector column ({@link WalSinkVectorSearchFunction}).
     */
    @Override
    public VectorSearchRuntimeProvider getSearchRuntimeProvider(VectorSearchContext context) {
        ExistingTable table = readableTable();
        int[][] searched = context.getSearchColumns();
        if (searched.length != 1 || searched[0].length != 1) {
            throw new ValidationException("VECTOR_SEARCH on the walsink table at '" + config.path()
                    + "' searches one top-level vector column, not " + searched.length);
        }
        String column = produced.getFieldNames().get(searched[0][0]);
        LogicalType type = produced.getTypeAt(searched[0][0]);
        Field field = table.schema().findField(column);
        if (!(type instanceof ArrayType array)
                || !(array.getElementType() instanceof FloatType || array.getElementType() instanceof DoubleType)
                || !(field.getType() instanceof ArrowType.FixedSizeList)) {
            throw new ValidationException("VECTOR_SEARCH on the walsink table at '" + config.path() + "': column '"
                    + column + "' is " + type + " stored as " + field.getType()
                    + ", not a vector column (ARRAY<FLOAT> or ARRAY<DOUBLE> with a declared dimension)");
        }
        return VectorSearchFunctionProvider.of(new WalSinkVectorSearchFunction(
                config.path(),
                config.s3(),
                config.schemaProfile(),
                column,
                array.getElementType() instanceof DoubleType,
                produced.getFieldNames(),
                config.vectorSearch()));
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.produced = (RowType) producedDataType.getLogicalType();
    }

    @Override
    public void applyLimit(long limit) {
        this.limit = limit;
    }

    /**
     * Filters that have an exact Lance form narrow the bounded scan's base rows (lance-core skips
     * what its statistics and indexes rule out); every filter stays with Flink too, because the
     * rows above the base are merged per key first and must be judged after that merge.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        List<ResolvedExpression> accepted = new ArrayList<>();
        List<String> predicates = new ArrayList<>();
        for (ResolvedExpression filter : filters) {
            LanceFilter.of(filter).ifPresent(predicate -> {
                accepted.add(filter);
                predicates.add("(" + predicate + ")");
            });
        }
        baseFilter = predicates.isEmpty() ? null : String.join(" AND ", predicates);
        return Result.of(accepted, filters);
    }

    @Override
    public DynamicTableSource copy() {
        WalSinkTableSource copy = new WalSinkTableSource(config, read, declared, declaredKey);
        copy.produced = produced;
        copy.limit = limit;
        copy.baseFilter = baseFilter;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "walsink(" + config.path() + ", " + config.scanMode() + ", " + read.startup() + ")";
    }
}
