package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.ArrowRowDataReader;
import io.walsink.read.RowExtractor;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;

/**
 * Builds a {@link RowData} of the projected columns from a batch of the base table, an SSTable or
 * a WAL entry. Those batches carry the table's columns by name plus, for SSTables and WAL
 * entries, {@code _tombstone}, so the columns are picked by name into a view of their own.
 */
@Internal
public final class ProjectedRowExtractor implements RowExtractor<RowData> {
    private final List<String> columns;
    private VectorSchemaRoot batch; // the batch the view and reader below were built for
    private VectorSchemaRoot view;
    private ArrowRowDataReader reader;

    public ProjectedRowExtractor(List<String> columns) {
        this.columns = List.copyOf(columns);
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
