package io.walsink.table.scan;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * The one split of a table scan: the whole table, merged. {@code rowsEmitted} is what a
 * checkpoint records, so a restored reader reads the table again and skips that many rows (exact
 * when the table did not change in between; rows come in primary-key order).
 */
public record TableScanSplit(String splitId, long rowsEmitted) implements SourceSplit {
    public static final String WHOLE_TABLE = "table";

    public static TableScanSplit wholeTable() {
        return new TableScanSplit(WHOLE_TABLE, 0);
    }

    @Override
    public String splitId() {
        return splitId;
    }

    TableScanSplit emitted(long rows) {
        return new TableScanSplit(splitId, rows);
    }
}
