package io.walsink.table.lookup;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.format.table.TableLocation;
import io.walsink.read.lookup.KeyLookup;
import io.walsink.read.snapshot.LookupScans;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import io.walsink.table.scan.ProjectedRowExtractor;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a lookup join's probe with the newest committed row of the probed primary key, or no
 * row. The key row is written into a one-row Arrow batch typed as the table's key columns, so the
 * key is hashed to its bucket and encoded exactly as the writers did it ({@link KeyLookup}).
 * Flink's partial cache, when configured, sits in front of this function and keeps its metrics.
 *
 * <p>A failed lookup is tried again up to {@code lookup.max-retries} times with everything it
 * had opened reopened, since the failure may come from a dataset garbage collection removed
 * after a long pause or from a passing storage error.
 */
@Internal
public final class WalSinkLookupFunction extends LookupFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WalSinkLookupFunction.class);

    private final String path;
    private final S3Options s3;
    private final HashMap<String, String> lanceStorageOptions; // HashMap: serializable, stable class
    private final RowType keyType;
    private final List<String> columns;
    private final LookupConfig config;

    private transient BufferAllocator allocator;
    private transient ObjectStore store;
    private transient KeyLookup lookup;
    private transient VectorSchemaRoot keyBatch;
    private transient RowDataArrowWriter keyWriter;
    private transient ProjectedRowExtractor extractor;
    private transient LookupScans scans; // outlives a reopened lookup

    /**
     * @param keyType the probe's key row: the table's primary-key columns by name, in the order
     *     the join condition gives them
     * @param columns the columns of a returned row, in order
     */
    public WalSinkLookupFunction(
            String path,
            S3Options s3,
            Map<String, String> lanceStorageOptions,
            RowType keyType,
            List<String> columns,
            LookupConfig config) {
        this.path = path;
        this.s3 = s3;
        this.lanceStorageOptions = new HashMap<>(lanceStorageOptions);
        this.keyType = keyType;
        this.columns = List.copyOf(columns);
        this.config = config;
    }

    @Override
    public void open(FunctionContext context) {
        scans = new LookupScans();
        MetricGroup metrics = context.getMetricGroup().addGroup("walsink");
        metrics.gauge("lookupDatasetScans", (Gauge<Long>) scans::datasets);
        metrics.gauge("lookupRowsRead", (Gauge<Long>) scans::rowsRead);
        openLookup();
        LOG.info(
                "Lookup join on walsink table {}: {} buckets, key {}, {}, versions checked {}",
                path,
                lookup.numBuckets().isPresent() ? lookup.numBuckets().getAsInt() : "no (every shard read),",
                keyType.getFieldNames(),
                config.describe(),
                config.refreshInterval().isZero() ? "at every lookup" : "every " + config.refreshInterval());
    }

    private void openLookup() {
        allocator = new RootAllocator();
        store = ObjectStores.open(path, s3);
        lookup = new KeyLookup(
                new TableLocation(store, StorageLocation.parse(path).lanceUri(), lanceStorageOptions),
                allocator,
                config.refreshInterval(),
                scans);
        Schema keySchema = new Schema(
                lookup.primaryKey().stream().map(lookup.schema()::findField).toList());
        keyBatch = VectorSchemaRoot.create(keySchema, allocator);
        keyWriter = RowDataArrowWriter.create(keyType, keySchema);
        extractor = new ProjectedRowExtractor(columns);
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        // Each retry opens everything again (closeLookup leaves nothing open).
        return LookupRetries.call(
                "Lookup in walsink table " + path,
                config.maxRetries(),
                () -> {
                    if (lookup == null) {
                        openLookup();
                    }
                    return lookupOnce(keyRow);
                },
                this::closeLookup);
    }

    private Collection<RowData> lookupOnce(RowData keyRow) {
        keyBatch.getFieldVectors().forEach(ValueVector::reset);
        keyWriter.write(keyRow, keyBatch, 0);
        keyBatch.setRowCount(1);
        Optional<RowData> row = lookup.lookup(keyBatch, 0, extractor);
        return row.map(List::of).orElse(List.of());
    }

    @Override
    public void close() {
        closeLookup();
    }

    private void closeLookup() {
        // In reverse order of opening; each may be null when opening failed part way.
        if (keyBatch != null) {
            keyBatch.close();
            keyBatch = null;
        }
        if (lookup != null) {
            lookup.close();
            lookup = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
        if (allocator != null) {
            allocator.close();
            allocator = null;
        }
    }
}
