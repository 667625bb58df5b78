package io.walsink.read.search;

import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.TableLocation;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.snapshot.DatasetBatches;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.RowExtractor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * The {@code k} nearest live rows of one snapshot: the rows above the base table (SSTables and WAL
 * entries, merged newest-wins in {@code fresh}, each with its exact distance) beside lance-core's
 * search of the base table, whose answers for keys the fresh part holds are stale and dropped.
 *
 * <p>A base search is asked for more than {@code k} rows because some may be dropped: first {@code
 * 2k} (or {@code k} plus the fresh keys when fewer), then twice as many until {@code k} survive,
 * the base has no more, or it was asked for {@code k} plus every fresh key (then at least {@code k}
 * survive unless the base is small). If {@code k} of the first {@code m} base answers survive,
 * the survivors are the base's own {@code k} nearest live rows, as far as the index finds them.
 */
final class NearestSearch<R> {
    private static final String DISTANCE = "_distance";

    private final Dataset base;
    private final TableLocation location;
    private final String tableUri;
    private final List<String> columns;
    private final NearestQuery query;
    private final MaintainedIndex.Metric metric;
    private final RowExtractor<R> extractor;
    private int baseSearches;

    NearestSearch(
            Dataset base,
            TableLocation location,
            List<String> columns,
            NearestQuery query,
            MaintainedIndex.Metric metric,
            RowExtractor<R> extractor) {
        this.base = base;
        this.location = location;
        this.tableUri = location.uri();
        this.columns = columns;
        this.query = query;
        this.metric = metric;
        this.extractor = extractor;
    }

    /** A row above the base table and its vector (null when the row has none). */
    record Fresh<R>(R row, float[] vector) {}

    /** An extractor for the rows above the base table: each row with its vector in {@code column}. */
    static <R> RowExtractor<Fresh<R>> fresh(String column, RowExtractor<R> extractor) {
        return (batch, row) ->
                new Fresh<>(extractor.extract(batch, row), VectorDistance.vectorAt(batch.getVector(column), row));
    }

    /** The nearest {@code k} of {@code fresh}'s live rows and the base table's rows it does not shadow. */
    List<Neighbour<R>> run(MergedRows<Fresh<R>> fresh) {
        VectorDistance distance = new VectorDistance(metric, query.vector());
        List<Neighbour<R>> candidates = new ArrayList<>();
        for (Fresh<R> row : fresh.live()) {
            if (row.vector() != null) { // a null vector is nowhere
                candidates.add(new Neighbour<>(row.row(), distance.to(row.vector())));
            }
        }
        int k = query.k();
        long most = (long) k + (fresh.keyed() ? fresh.keyCount() : 0);
        long asked = Math.min(most, 2L * k);
        while (true) {
            List<Neighbour<R>> survivors = new ArrayList<>();
            int answered = searchBase((int) Math.min(asked, Integer.MAX_VALUE), fresh, survivors);
            if (survivors.size() >= k || answered < asked || asked >= most) {
                candidates.addAll(survivors);
                break;
            }
            asked = Math.min(most, asked * 2);
        }
        candidates.sort(Comparator.comparingDouble(Neighbour::distance));
        return List.copyOf(candidates.subList(0, Math.min(k, candidates.size())));
    }

    /** How many base searches {@link #run} made: 1 unless answers were dropped. */
    int baseSearches() {
        return baseSearches;
    }

    /** Searches the base for {@code asked} rows; adds those {@code fresh} does not shadow; returns how many came. */
    private int searchBase(int asked, MergedRows<Fresh<R>> fresh, List<Neighbour<R>> survivors) {
        baseSearches++;
        Query.Builder nearest = new Query.Builder()
                .setColumn(query.column())
                .setKey(query.vector())
                .setK(asked)
                .setDistanceType(IndexBuilds.distance(metric));
        if (query.ef() > 0) {
            nearest.setEf(query.ef());
        }
        if (query.nprobes() > 0) {
            nearest.setNprobes(query.nprobes());
        }
        if (query.refineFactor() > 0) {
            nearest.setRefineFactor(query.refineFactor());
        }
        ScanOptions options = new ScanOptions.Builder()
                .nearest(nearest.build())
                .columns(columns)
                .build();
        int[] answered = {0};
        DatasetBatches.forEach(base, tableUri, location, options, null, batch -> {
            answered[0] += batch.getRowCount();
            keep(batch, fresh, survivors);
        });
        return answered[0];
    }

    private void keep(VectorSchemaRoot batch, MergedRows<Fresh<R>> fresh, List<Neighbour<R>> survivors) {
        Float4Vector distance = (Float4Vector) batch.getVector(DISTANCE);
        FieldVector[] keyColumns = fresh.keyColumns(batch, tableUri);
        boolean anyFresh = fresh.keyed() && fresh.holdsAnyKey();
        for (int r = 0; r < batch.getRowCount(); r++) {
            if (anyFresh && fresh.holdsKeyOf(keyColumns, r)) {
                continue; // a newer row or a tombstone of this key is above the base
            }
            survivors.add(new Neighbour<>(extractor.extract(batch, r), distance.get(r)));
        }
    }
}
