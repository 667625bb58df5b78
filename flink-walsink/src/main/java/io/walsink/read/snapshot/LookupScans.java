package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;

/**
 * What key lookups cost in lance-core scans, from lance-core's own scan statistics: how many
 * datasets (the base table, SSTables) were scanned and how many rows lance-core read to answer
 * them. Rows read per scan tell an operator whether lookups are served by a key index (a handful)
 * or read whole datasets. Updated by one thread, read by the metrics reporter.
 */
@Internal
public final class LookupScans {
    private volatile long datasets;
    private volatile long rowsRead;

    void add(long rows) {
        datasets++;
        rowsRead += rows;
    }

    /** Datasets scanned for lookups so far. */
    public long datasets() {
        return datasets;
    }

    /** Rows lance-core read for those scans. */
    public long rowsRead() {
        return rowsRead;
    }

    @Override
    public String toString() {
        return datasets + " dataset scans, " + rowsRead + " rows read";
    }
}
