package io.walsink.read.search;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.TableLocation;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.TableColumns;
import io.walsink.read.snapshot.TableSnapshot;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One snapshot's side of nearest-neighbour queries on one vector column: the base table open at
 * the snapshot's version, and the rows above it merged newest-wins with their vectors, read once
 * and then searched by any number of queries ({@link NearestSearch}).
 */
final class SnapshotVectors<R> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotVectors.class);

    private final TableSnapshot snapshot;
    private final Dataset base;
    private final TableLocation location;
    private final String tableUri;
    private final List<String> columns;
    private final String column;
    private final int dimension;
    private final MaintainedIndex.Metric indexMetric;
    private final MergedRows<NearestSearch.Fresh<R>> fresh;
    private final RowExtractor<R> extractor;

    /** Takes {@code base}, which it closes. */
    SnapshotVectors(
            TableSnapshot snapshot,
            Dataset base,
            TableLocation location,
            TableColumns layout,
            String column,
            MergedRows<NearestSearch.Fresh<R>> fresh,
            RowExtractor<R> extractor) {
        this.snapshot = snapshot;
        this.base = base;
        this.location = location;
        this.tableUri = location.uri();
        this.columns = layout.columns();
        this.column = column;
        this.dimension = dimensionOf(tableUri, layout, column);
        this.indexMetric = indexMetric(tableUri, base, column);
        this.fresh = fresh;
        this.extractor = extractor;
    }

    TableSnapshot snapshot() {
        return snapshot;
    }

    /**
     * @throws IllegalArgumentException if the query is of another column or dimension
     */
    List<Neighbour<R>> nearest(NearestQuery query) {
        if (!query.column().equals(column)) {
            throw new IllegalArgumentException(
                    "this search is of column '" + column + "', the query of '" + query.column() + "'");
        }
        if (query.vector().length != dimension) {
            throw new IllegalArgumentException("column '" + column + "' of the table at " + tableUri
                    + " holds vectors of dimension " + dimension + ", the query vector has " + query.vector().length);
        }
        MaintainedIndex.Metric metric = query.metric().orElse(indexMetric);
        NearestSearch<R> search = new NearestSearch<>(base, location, columns, query, metric, extractor);
        List<Neighbour<R>> nearest = search.run(fresh);
        LOG.debug(
                "Nearest {} of {} ({}): {} keys above the base, {} base searches",
                query,
                tableUri,
                snapshot.describe(),
                fresh.keyed() ? fresh.keyCount() : fresh.live().size(),
                search.baseSearches());
        return nearest;
    }

    @Override
    public void close() {
        base.close();
    }

    /**
     * The dimension of vector column {@code column}.
     *
     * @throws IllegalArgumentException naming the column if the table has none of that name, or it
     *     is not a fixed-size list of floats
     */
    static int dimensionOf(String tableUri, TableColumns layout, String column) {
        Field field = layout.schema().getFields().stream()
                .filter(f -> f.getName().equals(column))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the table at " + tableUri + " has no column '" + column
                        + "'; its columns are " + layout.columns()));
        if (!(field.getType() instanceof ArrowType.FixedSizeList list)
                || !(field.getChildren().get(0).getType() instanceof ArrowType.FloatingPoint)) {
            throw new IllegalArgumentException("column '" + column + "' of the table at " + tableUri + " is "
                    + field.getType() + ", not a vector column (a fixed-size list of floats)");
        }
        return list.getListSize();
    }

    /** The metric of the table's maintained vector index on {@code column}; L2 (lance-core's default) without one. */
    private static MaintainedIndex.Metric indexMetric(String tableUri, Dataset base, String column) {
        return MaintainedIndexes.of(LanceTables.describe(tableUri, base, true)).stream()
                .filter(i -> i.type().isVector() && i.column().equals(column))
                .map(MaintainedIndex::metric)
                .findFirst()
                .orElse(MaintainedIndex.Metric.L2);
    }
}
