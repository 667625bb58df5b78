package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.ColumnsAddedLater;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of another reader's batches that a filter keeps, copied batch by batch ({@link
 * MarkedRowsCopy}); batches with no row kept are skipped. Closing it closes the source.
 */
@Internal
public final class FilteredRowsReader extends ArrowReader {
    /** Which rows of one batch to keep; asked once per batch, so per-batch lookups happen once. */
    public interface RowFilter {
        IntPredicate on(VectorSchemaRoot batch);
    }

    private final ArrowReader source;
    private final RowFilter filter;
    private final List<Field> columns; // null: the source's own
    private final String name;
    private boolean[] kept = new boolean[0];
    private long rowsKept;

    public FilteredRowsReader(BufferAllocator allocator, ArrowReader source, RowFilter filter) {
        this(allocator, source, filter, null, null);
    }

    /**
     * As the source's batches were read under {@code columns} (a table's fields, in its order): a
     * column of them the source lacks, added to the table after the rows were written, reads as
     * null ({@link ColumnsAddedLater}); the source's other columns follow.
     *
     * @param name what the source is, for errors
     */
    public FilteredRowsReader(
            BufferAllocator allocator, ArrowReader source, RowFilter filter, List<Field> columns, String name) {
        super(allocator);
        this.source = source;
        this.filter = filter;
        this.columns = columns == null ? null : List.copyOf(columns);
        this.name = name;
    }

    /** Rows handed out so far. */
    long rowsKept() {
        return rowsKept;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        prepareLoadNextBatch();
        while (source.loadNextBatch()) {
            VectorSchemaRoot batch = source.getVectorSchemaRoot();
            int rows = batch.getRowCount();
            if (kept.length < rows) {
                kept = new boolean[rows];
            }
            IntPredicate keeps = filter.on(batch);
            int count = 0;
            for (int row = 0; row < rows; row++) {
                kept[row] = keeps.test(row);
                count += kept[row] ? 1 : 0;
            }
            if (count > 0) {
                if (columns == null) {
                    MarkedRowsCopy.copy(batch, kept, getVectorSchemaRoot());
                } else {
                    try (ColumnsAddedLater view = ColumnsAddedLater.view(batch, columns, name)) {
                        MarkedRowsCopy.copy(view.root(), kept, getVectorSchemaRoot());
                    }
                }
                rowsKept += count;
                return true;
            }
        }
        return false;
    }

    @Override
    public long bytesRead() {
        return source.bytesRead();
    }

    @Override
    protected void closeReadSource() throws IOException {
        source.close();
    }

    @Override
    protected Schema readSchema() throws IOException {
        Schema theirs = source.getVectorSchemaRoot().getSchema();
        if (columns == null) {
            return theirs;
        }
        ColumnsAddedLater.missing(columns, theirs, name); // a missing column must be nullable
        List<Field> fields = new ArrayList<>(columns);
        theirs.getFields().stream()
                .filter(f -> columns.stream().noneMatch(c -> c.getName().equals(f.getName())))
                .forEach(fields::add);
        return new Schema(fields);
    }
}
