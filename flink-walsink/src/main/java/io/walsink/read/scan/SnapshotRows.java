package io.walsink.read.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.RowExtractor;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;

/**
 * The live rows of one {@link SnapshotPart}, one at a time, from a {@link ScanPosition}: base rows
 * in fragment order, each left out when its bucket is not the part's or its key has a row in the
 * unmerged part (that row is newer, live or deleted), then the unmerged part's live rows by key
 * (append-only tables: every base row, then every unmerged row in read order). Holds one base
 * batch and the unmerged part, never the base table. The sequence is a function of the snapshot
 * and the part, so a {@link #position()} taken here resumes at exactly the next row.
 */
@Internal
public final class SnapshotRows<R> implements AutoCloseable {
    private final Dataset base;
    private final BaseFragments baseRows; // null once, or when, no base fragment is left
    private final BucketSelection bucket;
    private final MergedRows<?> overlay; // null when nothing excludes base rows
    private final RowExtractor<R> extractor;
    private final List<R> unmerged; // null when the part does not emit them
    private final String uri;
    private final int fragmentCount;

    private int next; // index into unmerged
    private long emitted;
    private long boundBatch = -1;
    private FieldVector[] keyColumns;
    private BucketSelection.Assigner inBucket;
    private IntFunction<R> batchRows; // the bound batch's rows, made at its first row emitted

    SnapshotRows(
            Dataset base,
            String uri,
            BaseFragments baseRows,
            BucketSelection bucket,
            MergedRows<?> overlay,
            RowExtractor<R> extractor,
            List<R> unmerged,
            int fragmentCount,
            ScanPosition from) {
        this.base = base;
        this.uri = uri;
        this.baseRows = baseRows;
        this.bucket = bucket;
        this.overlay = overlay;
        this.extractor = extractor;
        this.unmerged = unmerged;
        this.emitted = from.emitted();
        this.fragmentCount = fragmentCount;
        this.next = from.fragment() >= fragmentCount ? (int) from.row() : 0;
    }

    /** The next live row, or null when the part is read. */
    public R next() {
        if (baseRows != null) {
            while (baseRows.advance()) {
                VectorSchemaRoot batch = baseRows.batch();
                int row = baseRows.index();
                if (baseRows.batchNumber() != boundBatch) {
                    bind(batch);
                }
                if ((inBucket == null || inBucket.keeps(row))
                        && (overlay == null || !overlay.holdsKeyOf(keyColumns, row))) {
                    emitted++;
                    if (batchRows == null) {
                        batchRows = extractor.rowsOf(batch);
                    }
                    return batchRows.apply(row);
                }
            }
        }
        if (unmerged != null && next < unmerged.size()) {
            emitted++;
            return unmerged.get(next++);
        }
        return null;
    }

    private void bind(VectorSchemaRoot batch) {
        keyColumns = overlay == null ? null : overlay.keyColumns(batch, uri);
        inBucket = bucket == null ? null : bucket.assigner(batch);
        batchRows = null;
        boundBatch = baseRows.batchNumber();
    }

    /** Where the rows returned so far end: a read opened there returns the rest. */
    public ScanPosition position() {
        if (baseRows != null && baseRows.fragment() < fragmentCount) {
            return new ScanPosition(baseRows.fragment(), baseRows.row(), emitted);
        }
        return new ScanPosition(fragmentCount, next, emitted);
    }

    @Override
    public void close() {
        try (Dataset ignored = base) {
            if (baseRows != null) {
                baseRows.close();
            }
        }
    }
}
