package io.walsink.shard.io;

import io.walsink.annotation.Internal;

/**
 * Counters of one shard writer since it was opened, for logs and tests: opening a shard logs the
 * replayed entries and rows, and the Flink operator logs them all per bucket when it finishes.
 * The Flink metrics do not read them: the operator's {@code ShardWriterMetrics} keeps its own
 * counters for the whole subtask. Written and read on the owner thread only, so plain fields
 * suffice.
 */
@Internal
public final class ShardStats {
    public long rowsWritten;
    public long deletesWritten;
    long walAppends;
    long walBytes;
    long walConflicts;
    public long replayedEntries;
    public long replayedRows;
    public long replayFlushes;
    long sstablesWritten;
    long sstablesPublished;
    long manifestVersionsWritten;

    public long rowsWritten() {
        return rowsWritten;
    }

    public long deletesWritten() {
        return deletesWritten;
    }

    public long walAppends() {
        return walAppends;
    }

    public long walBytes() {
        return walBytes;
    }
    /** Appends that found their position taken and moved on (each one re-read the manifest). */
    public long walConflicts() {
        return walConflicts;
    }

    public long replayedEntries() {
        return replayedEntries;
    }

    public long replayedRows() {
        return replayedRows;
    }

    /** SSTables written while replaying, to stay within the unflushed budget. */
    public long replayFlushes() {
        return replayFlushes;
    }

    public long sstablesWritten() {
        return sstablesWritten;
    }

    public long sstablesPublished() {
        return sstablesPublished;
    }

    public long manifestVersionsWritten() {
        return manifestVersionsWritten;
    }

    @Override
    public String toString() {
        return "rows=" + rowsWritten + " deletes=" + deletesWritten + " walAppends=" + walAppends
                + " walBytes=" + walBytes + " walConflicts=" + walConflicts + " replayedEntries=" + replayedEntries
                + " replayedRows=" + replayedRows + " sstablesWritten=" + sstablesWritten
                + " sstablesPublished=" + sstablesPublished + " manifestVersions=" + manifestVersionsWritten;
    }
}
