package io.walsink.table;

import io.walsink.annotation.Internal;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'walsink'}: Lance tables written through MemWAL, as SQL sink and source.
 *
 * <pre>{@code
 * CREATE TABLE events (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
 * WITH ('connector' = 'walsink', 'path' = 's3://bucket/events', 'buckets' = '8');
 * }</pre>
 *
 * Options: {@link WalSinkTableOptions}. With a PRIMARY KEY the sink upserts (walsink writes primary-key
 * tables only); reading does not.
 */
@Internal
public final class WalSinkTableFactory implements DynamicTableSinkFactory, DynamicTableSourceFactory {
    public static final String IDENTIFIER = "walsink";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return new LinkedHashSet<>(WalSinkTableOptions.required());
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return new LinkedHashSet<>(WalSinkTableOptions.optional());
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        WalSinkTableConfig config = validatedConfig(context);
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        // Without a PRIMARY KEY the table is append-only: every row kept, no updates or deletes.
        return new WalSinkTableSink(
                config,
                physicalRowType(schema),
                primaryKey(schema),
                VectorColumnOptions.from(context.getCatalogTable().getOptions()),
                IndexOptions.from(context.getCatalogTable().getOptions()));
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        WalSinkTableConfig config = validatedConfig(context);
        // only checked: reads take the table's types and indexes
        VectorColumnOptions.from(context.getCatalogTable().getOptions());
        IndexOptions.from(context.getCatalogTable().getOptions());
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        ContinuousReadConfig read = ContinuousReadConfig.from(
                FactoryUtil.createTableFactoryHelper(this, context).getOptions(),
                context.getConfiguration(),
                config.scanMode());
        return new WalSinkTableSource(config, read, physicalRowType(schema), primaryKey(schema));
    }

    /**
     * Creates the table a catalog's {@code CREATE TABLE} declares, checked as an {@code INSERT}
     * into it would be (options, types, key, indexes): nothing is written when a check fails.
     */
    public static void createTable(Context context) {
        WalSinkTableSink sink = (WalSinkTableSink) new WalSinkTableFactory().createDynamicTableSink(context);
        sink.buildSink();
    }

    private WalSinkTableConfig validatedConfig(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // unknown options and missing 'path' fail here, named; the per-column vector options and
        // the per-index options are checked by VectorColumnOptions and IndexOptions
        helper.validateExcept(VectorColumnOptions.PREFIX, IndexOptions.PREFIX);
        return WalSinkTableConfig.from(helper.getOptions());
    }

    private static List<String> primaryKey(ResolvedSchema schema) {
        return schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
    }

    private static RowType physicalRowType(ResolvedSchema schema) {
        return (RowType) schema.toPhysicalRowDataType().getLogicalType();
    }
}
