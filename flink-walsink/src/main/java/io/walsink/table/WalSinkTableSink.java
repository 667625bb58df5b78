package io.walsink.table;

import io.walsink.error.InputException;
import io.walsink.flink.WalSink;
import io.walsink.flink.WalSinkBuilder;
import io.walsink.format.FormatException;
import io.walsink.format.table.MaintainedIndex;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * The SQL sink of a walsink table: an upsert sink keyed by the declared primary key. INSERT,
 * UPDATE_AFTER and DELETE rows become upserts and deletes; key-only deletes are accepted, since a
 * delete needs nothing but the key. The rows go through {@link WalSink}, so the exactly-once and
 * recovery behaviour is the DataStream sink's.
 */
final class WalSinkTableSink implements DynamicTableSink {
    private final WalSinkTableConfig config;
    private final RowType rowType;
    private final List<String> primaryKey;
    private final Map<String, Integer> vectorColumns;
    private final List<MaintainedIndex> indexes;

    WalSinkTableSink(
            WalSinkTableConfig config,
            RowType rowType,
            List<String> primaryKey,
            Map<String, Integer> vectorColumns,
            List<MaintainedIndex> indexes) {
        this.config = config;
        this.rowType = rowType;
        this.primaryKey = List.copyOf(primaryKey);
        this.vectorColumns = new LinkedHashMap<>(vectorColumns);
        this.indexes = List.copyOf(indexes);
    }

    /**
     * Insert-only for an insert-only query (each insert is an upsert by key anyway; declaring
     * upsert there makes Flink 2.3 demand an ON CONFLICT clause, {@code
     * table.exec.sink.require-on-conflict}, for a materializer we do not need); upsert with
     * key-only deletes for anything else.
     */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (primaryKey.isEmpty()) {
            return ChangelogMode.insertOnly(); // append-only: the planner refuses updating queries, naming the sink
        }
        return requestedMode.containsOnly(RowKind.INSERT) ? ChangelogMode.insertOnly() : ChangelogMode.upsert(true);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        // Built now, while the statement is planned: a missing table is created, and a schema or
        // key that does not match an existing table fails before the job is submitted.
        WalSink<RowData> sink = buildSink();
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(ProviderContext provider, DataStream<RowData> rows) {
                DataStreamSink<RowData> written = rows.sinkTo(sink);
                // Flink derives the writer operator's uid from the sink's: savepoints stay restorable.
                provider.generateUid("walsink-sink").ifPresent(written::uid);
                if (config.sinkParallelism() != null) {
                    written.setParallelism(config.sinkParallelism());
                }
                return written.name("walsink: " + config.path());
            }
        };
    }

    WalSink<RowData> buildSink() {
        WalSinkBuilder<RowData> builder = WalSink.forRowData(rowType)
                .path(config.path())
                .primaryKey(primaryKey.toArray(String[]::new))
                .options(config.sinkOptions())
                .s3(config.s3())
                .schemaProfile(config.schemaProfile());
        vectorColumns.forEach(builder::vectorColumn);
        indexes.forEach(builder::maintainedIndex);
        if (config.buckets() != null) {
            builder.createTableIfMissing(config.buckets());
        } else if (ExistingTable.at(config).isEmpty()) {
            throw new ValidationException("There is no walsink table at '" + config.path() + "': set option '"
                    + WalSinkTableOptions.BUCKETS.key() + "' (1 to 1024) to create one");
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException | InputException | FormatException e) {
            throw new ValidationException(
                    "Cannot write the walsink table at '" + config.path() + "': " + e.getMessage(), e);
        }
    }

    @Override
    public DynamicTableSink copy() {
        return new WalSinkTableSink(config, rowType, primaryKey, vectorColumns, indexes);
    }

    @Override
    public String asSummaryString() {
        return "walsink(" + config.path() + ")";
    }
}
