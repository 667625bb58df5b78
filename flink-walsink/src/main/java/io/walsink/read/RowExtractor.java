package io.walsink.read;

import io.walsink.annotation.Internal;
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
}
