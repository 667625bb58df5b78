package io.walsink.format.table;

import io.walsink.annotation.Internal;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;

/** One lance-core merge-insert of a stream of rows into the base table, as one commit. */
@Internal
public final class BaseMergeInsert {
    private BaseMergeInsert() {}

    /**
     * A merge-insert that lance-core does not run again on a newer base version: a commit that
     * meets a concurrent one on the same rows fails instead of landing over it. Every commit walsink
     * makes to the base table is fenced so (a compactor's merges, a restore's roll-back), since a
     * stale one would undo a newer writer's rows.
     */
    public static MergeInsertParams fenced(MergeInsertParams params) {
        return params.withConflictRetries(0);
    }

    /** Merges {@code rows} into {@code base} (which then has to check out the latest version to see it). */
    public static void run(Dataset base, MergeInsertParams params, ArrowReader rows, BufferAllocator allocator) {
        try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
            // The exported stream owns the reader: its release (by lance-core, once the merge has
            // consumed it) closes the reader, so it must not be closed here as well.
            try {
                Data.exportArrayStream(allocator, rows, stream);
            } catch (RuntimeException e) {
                closeQuietly(rows, e);
                throw e;
            }
            MergeInsertResult result = base.mergeInsert(params, stream);
            result.dataset().close();
        }
    }

    private static void closeQuietly(ArrowReader rows, RuntimeException failure) {
        try {
            rows.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
