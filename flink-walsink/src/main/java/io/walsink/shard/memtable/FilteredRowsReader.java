package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
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
    private boolean[] kept = new boolean[0];
    private long rowsKept;

    public FilteredRowsReader(BufferAllocator allocator, ArrowReader source, RowFilter filter) {
        super(allocator);
        this.source = source;
        this.filter = filter;
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
                MarkedRowsCopy.copy(batch, kept, getVectorSchemaRoot());
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
        return source.getVectorSchemaRoot().getSchema();
    }
}
