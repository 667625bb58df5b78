package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes one input row straight into a memtable's open batch, so a row from a streaming source
 * is copied once (source record to memtable) rather than staged in a batch of its own first.
 * The writer is resolved once per schema by its owner; {@link io.walsink.shard.ShardWriter#write(RowWriter,
 * boolean)} calls it once per row.
 */
@Internal
public interface RowWriter {
    /**
     * Writes the current row's values at row {@code at} of {@code columns}: the memtable's
     * vectors in table column order (a trailing {@code _tombstone} column, if any, is not the
     * writer's to fill). Fixed-width vectors ({@code BaseFixedWidthVector}) already have room
     * for row {@code at}, so their values may be written with {@code set} or at their buffers'
     * addresses; variable-width ones ({@code BaseVariableWidthVector}) have room for its validity
     * bit and offset, not for its bytes; other vectors grow as needed ({@code setSafe}). A value that cannot be written fails with an exception before
     * the row counts: the next row overwrites it.
     */
    void writeRow(FieldVector[] columns, int at);
}
