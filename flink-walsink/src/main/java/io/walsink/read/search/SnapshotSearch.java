package io.walsink.read.search;

import io.walsink.annotation.Internal;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.ReadMode;
import io.walsink.read.TextHit;
import io.walsink.read.TextQuery;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.RowValues;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableColumns;
import io.walsink.read.snapshot.TableSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.lance.Dataset;

/**
 * The searches of one pinned snapshot, read only as far as they need: the {@code k} nearest rows
 * to a vector (the base table through lance-core's vector index, the rows above it exactly) and the
 * {@code k} best full-text matches (every dataset through its own inverted index), each a key's
 * newest row, deletes honoured. {@code TableReader} answers its users' queries
 * with them, and walsink's SQL searches theirs.
 */
@Internal
public final class SnapshotSearch {
    private SnapshotSearch() {}

    /**
     * The {@code query.k()} live rows of {@code snapshot} nearest the query vector, each with its
     * distance, nearest first, each row built by {@code extractor} (null: as a map of every column).
     *
     * @throws IllegalArgumentException if the column is not a vector column of the table, or its
     *     dimension is not the query vector's
     */
    public static <R> List<Neighbour<R>> nearest(
            SnapshotReader reader, TableSnapshot snapshot, NearestQuery query, RowExtractor<R> extractor) {
        try (SnapshotVectors<R> vectors = vectors(reader, snapshot, query.column(), extractor)) {
            return vectors.nearest(query);
        }
    }

    /**
     * Opens {@code snapshot} for nearest-neighbour queries of {@code column}: the base table at its
     * version, and the rows above it read once.
     */
    @SuppressWarnings("unchecked")
    static <R> SnapshotVectors<R> vectors(
            SnapshotReader reader, TableSnapshot snapshot, String column, RowExtractor<R> extractor) {
        Dataset base = reader.openBase(snapshot);
        try {
            TableColumns layout = TableColumns.of(base);
            RowExtractor<R> rows =
                    extractor != null ? extractor : (RowExtractor<R>) RowValues.extractor(layout.columns());
            SnapshotVectors.dimensionOf(reader.tableUri(), layout, column); // before anything is read
            MergedRows<NearestSearch.Fresh<R>> fresh = new MergedRows<>(layout, NearestSearch.fresh(column, rows));
            reader.applyShards(base, layout, snapshot, fresh);
            return new SnapshotVectors<>(snapshot, base, reader.location(), layout, column, fresh, rows);
        } catch (RuntimeException e) {
            base.close();
            throw e;
        }
    }

    /**
     * The {@code query.k()} live rows of a {@link ReadMode#COMMITTED} snapshot that best match the
     * query text, best first, each with its BM25 score: every dataset (the base table, each
     * published SSTable above it) searched through its own full-text index, a key's answer being its
     * newest row, and only if that row matches (deleted keys have none). Each row is built by
     * {@code extractor} (null: as a map of every column).
     *
     * @throws IllegalArgumentException if the table maintains no full-text ({@code INVERTED}) index
     *     on the column, or for a {@link ReadMode#LATEST} snapshot: the WAL tail has no full-text
     *     index to search
     */
    @SuppressWarnings("unchecked")
    public static <R> List<TextHit<R>> fullText(
            SnapshotReader reader, TableSnapshot snapshot, TextQuery query, RowExtractor<R> extractor) {
        if (snapshot.mode() != ReadMode.COMMITTED) {
            throw new IllegalArgumentException("a full-text query reads published data only (the WAL tail has no"
                    + " full-text index): pin a COMMITTED snapshot, not " + snapshot.mode());
        }
        String tableUri = reader.tableUri();
        try (Dataset base = reader.openBase(snapshot)) {
            TableColumns layout = TableColumns.of(base);
            String index = fullTextIndex(tableUri, base, query.column());
            RowExtractor<R> rows =
                    extractor != null ? extractor : (RowExtractor<R>) RowValues.extractor(layout.columns());
            TextSearch<R> search = new TextSearch<>(reader.location(), layout, query, rows);
            List<List<byte[]>> keysAbove = new ArrayList<>();
            reader.forEachSsTableAbove(snapshot, base, (uri, ds) -> keysAbove.add(search.keysOf(ds, uri)));
            if (base.getIndexes().stream().anyMatch(i -> i.name().equals(index))) {
                search.searchBase(base, query.k() + TextSearch.distinct(keysAbove));
            } else if (base.countRows() > 0) {
                throw new IllegalStateException("the base table of " + tableUri + " has rows but no full-text index '"
                        + index + "' yet: the compactor builds it after its first merge; try again after it ran");
            }
            int[] next = {0};
            reader.forEachSsTableAbove(
                    snapshot, base, (uri, ds) -> search.searchAbove(ds, uri, keysAbove.get(next[0]++)));
            return search.best();
        }
    }

    /** The name of the table's maintained full-text index on {@code column}. */
    private static String fullTextIndex(String tableUri, Dataset base, String column) {
        return MaintainedIndexes.of(LanceTables.describe(tableUri, base, true)).stream()
                .filter(i ->
                        i.type() == MaintainedIndex.Type.INVERTED && i.column().equals(column))
                .map(MaintainedIndex::name)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the table at " + tableUri
                        + " maintains no full-text (INVERTED) index on column '" + column
                        + "': declare one when the table is created ('index.<name>.type' = 'INVERTED')"));
    }
}
