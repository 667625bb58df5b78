package io.walsink.read.scan;

import io.walsink.format.FormatException;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.TableLocation;
import io.walsink.read.snapshot.DatasetBatches;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The rows of some fragments of a base table version, one at a time, from a position: one
 * fragment scan open at a time and one Arrow batch held, whatever the table's size. lance-core
 * applies the fragments' deletion files, so a row offset into a fragment names the same row for
 * as long as the version exists, and a restore starts the fragment's scan at that offset.
 */
final class BaseFragments implements AutoCloseable {
    private final Dataset base;
    private final String uri;
    private final TableLocation location;
    private final List<Integer> fragments;
    private final List<String> columns;
    private final long batchSize;
    private final String filter;

    private int fragment;
    private long row; // rows of the current fragment consumed, the current one included
    private LanceScanner scanner;
    private ArrowReader reader;
    private VectorSchemaRoot batch;
    private int inBatch;
    private long batches; // batches loaded so far: a batch reloads the same root, so this tells them apart

    /**
     * @param fragments fragment ids, scanned in this order
     * @param columns the columns to read
     * @param filter a Lance predicate the rows must satisfy, or null: offsets count the rows it keeps
     */
    BaseFragments(
            Dataset base,
            String uri,
            TableLocation location,
            List<Integer> fragments,
            List<String> columns,
            long batchSize,
            String filter,
            int fromFragment,
            long fromRow) {
        this.base = base;
        this.uri = uri;
        this.location = location;
        this.fragments = fragments;
        this.columns = columns;
        this.batchSize = batchSize;
        // lance-core 7.0.0 reads the struct values of filtered rows wrong
        // (DatasetBatches#filteredRowsLoseStructNulls): such a table's base rows are filtered by
        // Flink alone, which judges every row anyway. Fixed per table, so offsets keep their meaning.
        this.filter = filter != null && DatasetBatches.holdsStruct(base.getSchema()) ? null : filter;
        this.fragment = fromFragment;
        this.row = fromRow;
    }

    /** Moves to the next row; false once every fragment is read. */
    boolean advance() {
        try {
            while (fragment < fragments.size()) {
                if (reader == null) {
                    open();
                }
                if (batch != null && inBatch + 1 < batch.getRowCount()) {
                    inBatch++;
                    row++;
                    return true;
                }
                if (reader.loadNextBatch()) {
                    batch = reader.getVectorSchemaRoot();
                    inBatch = -1;
                    batches++;
                    continue;
                }
                closeScan();
                fragment++;
                row = 0;
            }
            return false;
        } catch (FormatException e) {
            throw e;
        } catch (Exception e) {
            String where = uri + " (fragment " + fragments.get(fragment) + ")";
            if (LanceFailures.isS3Failure(uri, e)) {
                throw location.failure(where, "scanning the Lance dataset", e);
            }
            throw new FormatException(where, "cannot scan Lance dataset: " + e.getMessage(), e);
        }
    }

    private void open() {
        ScanOptions.Builder options = new ScanOptions.Builder()
                .fragmentIds(List.of(fragments.get(fragment)))
                .columns(columns)
                .batchSize(batchSize);
        if (filter != null) {
            // A fixed order for a fixed filter: no index, whose results could come in another order.
            options.filter(filter).useScalarIndex(false);
        }
        if (row > 0) {
            options.offset(row); // rows after deletions (and the filter), in the fragment's fixed order
        }
        scanner = base.newScan(options.build());
        reader = scanner.scanBatches();
        batch = null;
    }

    /** The batch holding the current row; valid until the next {@link #advance()}. */
    VectorSchemaRoot batch() {
        return batch;
    }

    /** The current row's index in {@link #batch()}. */
    int index() {
        return inBatch;
    }

    /** Changes whenever {@link #batch()} holds new rows, though it may be the same object. */
    long batchNumber() {
        return batches;
    }

    int fragment() {
        return fragment;
    }

    /** Rows of {@link #fragment()} consumed, the current one included. */
    long row() {
        return row;
    }

    private void closeScan() throws Exception {
        batch = null;
        try (LanceScanner s = scanner;
                ArrowReader r = reader) {
            scanner = null;
            reader = null;
        }
    }

    @Override
    public void close() {
        try {
            closeScan();
        } catch (Exception e) {
            throw new FormatException(uri, "cannot close a scan of the Lance dataset: " + e.getMessage(), e);
        }
    }
}
