package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.BucketSelection;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a table scan: one bucket of a bucket-sharded table (its base rows and its shard,
 * merged), or the whole table when it cannot be split by bucket. {@code rowsEmitted} is what a
 * checkpoint records, so a restored reader reads the split again and skips that many rows (exact
 * when the table did not change in between; rows come in primary-key order).
 *
 * @param bucket the bucket read, or null for the whole table
 */
@Internal
public record TableScanSplit(String splitId, BucketSelection bucket, long rowsEmitted) implements SourceSplit {
    public static final String WHOLE_TABLE = "table";

    public static TableScanSplit wholeTable() {
        return new TableScanSplit(WHOLE_TABLE, null, 0);
    }

    public static TableScanSplit of(BucketSelection bucket) {
        return new TableScanSplit("bucket-" + bucket.bucket(), bucket, 0);
    }

    @Override
    public String splitId() {
        return splitId;
    }

    TableScanSplit emitted(long rows) {
        return new TableScanSplit(splitId, bucket, rows);
    }
}
