package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One decoded WAL entry. The entry owns its batches: closing it frees their buffers, so a caller
 * that keeps rows past {@link #close()} must transfer or copy them first.
 *
 * @param position the entry's WAL position (1-based)
 * @param generation the memtable generation, when the entry records one (SPEC profile)
 * @param sentinel whether this is a fence sentinel (then {@code batches} is empty)
 * @param batches the entry's record batches in append order, none empty
 */
@Internal
public record WalEntry(
        long position, long writerEpoch, OptionalLong generation, boolean sentinel, List<VectorSchemaRoot> batches)
        implements AutoCloseable {

    public WalEntry {
        batches = List.copyOf(batches);
    }

    public long rowCount() {
        long rows = 0;
        for (VectorSchemaRoot batch : batches) {
            rows += batch.getRowCount();
        }
        return rows;
    }

    @Override
    public void close() {
        try {
            AutoCloseables.close(batches);
        } catch (Exception e) {
            throw new IllegalStateException("closing WAL entry " + position, e);
        }
    }
}
