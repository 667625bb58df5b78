package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.ArrowRowDataReader;
import io.walsink.read.snapshot.RowExtractor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/**
 * Builds a {@link RowData} of the projected columns from a batch of the base table, an SSTable or
 * a WAL entry. Those batches carry the table's columns by name plus, for SSTables and WAL
 * entries, {@code _tombstone}, so the columns are picked by name into a view of their own.
 * {@link #columnar} extractors return the rows of a base batch as {@link ColumnarRowData} over
 * one heap copy of the batch instead of a row copy each.
 */
@Internal
public final class ProjectedRowExtractor implements RowExtractor<RowData> {
    private final List<String> columns;
    private final boolean columnar;
    private VectorSchemaRoot batch; // the batch the view and reader below were built for
    private VectorSchemaRoot view;
    private ArrowRowDataReader reader;

    /** Rows as {@link org.apache.flink.table.data.GenericRowData}, one copy per row. */
    public ProjectedRowExtractor(List<String> columns) {
        this(columns, false);
    }

    private ProjectedRowExtractor(List<String> columns, boolean columnar) {
        this.columns = List.copyOf(columns);
        this.columnar = columnar;
    }

    /**
     * Rows of a batch taken several at a time ({@link #rowsOf}) as {@link ColumnarRowData}: each
     * row a fresh object over a heap copy of the batch, so it owns its values like a row copy, but
     * supports no {@code equals}: for a source's output, not for rows kept and compared.
     */
    public static ProjectedRowExtractor columnar(List<String> columns) {
        return new ProjectedRowExtractor(columns, true);
    }

    @Override
    public IntFunction<RowData> rowsOf(VectorSchemaRoot source) {
        if (!columnar) {
            return RowExtractor.super.rowsOf(source);
        }
        if (source != batch) {
            bind(source);
        }
        view.setRowCount(source.getRowCount()); // a reloaded source is the same object with other rows
        VectorizedColumnBatch copy = reader.copyBatch(view);
        return row -> new ColumnarRowData(copy, row);
    }

    @Override
    public RowData extract(VectorSchemaRoot source, int row) {
        if (source != batch) {
            bind(source);
        }
        return reader.read(view, row);
    }

    private void bind(VectorSchemaRoot source) {
        List<FieldVector> vectors = new ArrayList<>(columns.size());
        for (String column : columns) {
            FieldVector vector = source.getVector(column);
            if (vector == null) {
                throw new IllegalStateException(
                        "a batch of the table has no column '" + column + "': " + source.getSchema());
            }
            vectors.add(vector);
        }
        // A view over vectors the source owns: never closed here.
        view = new VectorSchemaRoot(vectors);
        reader = ArrowRowDataReader.create(view.getSchema());
        batch = source;
    }
}
