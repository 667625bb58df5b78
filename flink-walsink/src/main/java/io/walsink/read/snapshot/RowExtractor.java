package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import java.util.function.IntFunction;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Turns one row of a batch into the value a reader returns. The batch is valid only during the
 * call, so the result must own its values. Batches come from the base table, SSTables and WAL
 * entries: they hold the table's columns by name, possibly with extra ones ({@code _tombstone}).
 */
@FunctionalInterface
@Internal
public interface RowExtractor<R> {
    R extract(VectorSchemaRoot batch, int row);

    /**
     * The rows of {@code batch} by index, for a reader that takes several rows of one base batch:
     * the function is asked only while {@code batch} holds these rows, and its results must own
     * their values as {@link #extract}'s do. An extractor may override it to convert the batch
     * once instead of a row at a time.
     */
    default IntFunction<R> rowsOf(VectorSchemaRoot batch) {
        return row -> extract(batch, row);
    }
}
