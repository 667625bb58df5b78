package io.walsink.table.search;

import io.walsink.annotation.Internal;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.Neighbour;
import io.walsink.read.search.VectorSearcher;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.S3Options;
import io.walsink.table.scan.ProjectedRowExtractor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.VectorSearchFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers each {@code VECTOR_SEARCH} of a walsink table with the {@code top_k} live rows of the
 * committed table nearest the query vector ({@link VectorSearcher}): every column of the row, then
 * {@code score}, the distance as Lance measures it for the column's index (smaller is nearer),
 * nearest first. A null query vector finds nothing.
 */
@Internal
public final class WalSinkVectorSearchFunction extends VectorSearchFunction {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WalSinkVectorSearchFunction.class);

    private final String path;
    private final S3Options s3;
    private final WalSchemaProfile profile;
    private final String column;
    private final boolean doubles;
    private final List<String> columns;
    private final VectorSearchConfig config;

    private transient SnapshotReader reader;
    private transient VectorSearcher<RowData> searcher;

    /**
     * @param doubles whether query vectors come as {@code ARRAY<DOUBLE>} (else {@code ARRAY<FLOAT>})
     * @param columns the columns of a returned row, in order
     */
    public WalSinkVectorSearchFunction(
            String path,
            S3Options s3,
            WalSchemaProfile profile,
            String column,
            boolean doubles,
            List<String> columns,
            VectorSearchConfig config) {
        this.path = Objects.requireNonNull(path, "path");
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.column = Objects.requireNonNull(column, "column");
        this.doubles = doubles;
        this.columns = List.copyOf(columns);
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public void open(FunctionContext context) {
        reader = SnapshotReader.open(path, s3, profile);
        searcher = new VectorSearcher<>(reader, column, new ProjectedRowExtractor(columns), config.refreshInterval());
        context.getMetricGroup().addGroup("walsink").gauge("vectorSearchSnapshotsRead", (Gauge<Long>)
                searcher::snapshotsRead);
        LOG.info("VECTOR_SEARCH on walsink table {}, column {}: {}", path, column, config);
    }

    @Override
    public Collection<RowData> vectorSearch(int topK, RowData queryData) {
        if (queryData.isNullAt(0)) {
            return List.of();
        }
        float[] vector = vector(queryData.getArray(0));
        List<Neighbour<RowData>> nearest = searcher.nearest(config.query(column, vector, topK));
        List<RowData> rows = new ArrayList<>(nearest.size());
        for (Neighbour<RowData> n : nearest) {
            rows.add(new JoinedRowData(n.row(), GenericRowData.of(n.distance())));
        }
        return rows;
    }

    private float[] vector(ArrayData array) {
        float[] vector = new float[array.size()];
        for (int i = 0; i < vector.length; i++) {
            if (array.isNullAt(i)) {
                throw new IllegalArgumentException("VECTOR_SEARCH on column '" + column + "' of " + path
                        + ": the query vector holds null at index " + i);
            }
            vector[i] = doubles ? (float) array.getDouble(i) : array.getFloat(i);
        }
        return vector;
    }

    @Override
    public void close() {
        if (searcher != null) {
            searcher.close();
            searcher = null;
        }
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }
}
