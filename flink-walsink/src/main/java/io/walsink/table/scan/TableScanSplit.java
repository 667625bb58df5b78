package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.BucketSelection;
import io.walsink.read.TableSnapshot;
import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a table scan: one bucket of a bucket-sharded table (its base rows and its shard,
 * merged), or the whole table when it cannot be split by bucket, always as of the snapshot the
 * enumerator pinned when the scan started.
 *
 * <p>{@code rowsEmitted} is what a checkpoint records. A split's rows are a function of its
 * snapshot (same rows, same order: primary-key order, or a fixed read order for an append-only
 * table), so a restored reader reads the snapshot again and skipping that many rows resumes at
 * exactly the next row, whatever was written to the table in between. If the snapshot's objects
 * were garbage-collected meanwhile, the read fails instead (see {@link TableSnapshot}).
 *
 * @param bucket the bucket read, or null for the whole table
 * @param snapshot the pinned versions; for a bucket split only the shards of its bucket
 */
@Internal
public record TableScanSplit(String splitId, BucketSelection bucket, TableSnapshot snapshot, long rowsEmitted)
        implements SourceSplit {
    public static final String WHOLE_TABLE = "table";

    public TableScanSplit {
        Objects.requireNonNull(splitId, "splitId");
        Objects.requireNonNull(snapshot, "snapshot");
    }

    public static TableScanSplit wholeTable(TableSnapshot snapshot) {
        return new TableScanSplit(WHOLE_TABLE, null, snapshot, 0);
    }

    public static TableScanSplit of(BucketSelection bucket, TableSnapshot snapshot) {
        return new TableScanSplit("bucket-" + bucket.bucket(), bucket, snapshot.forBucket(bucket.bucket()), 0);
    }

    @Override
    public String splitId() {
        return splitId;
    }

    /** The same split with its first {@code rows} rows emitted. */
    public TableScanSplit emitted(long rows) {
        return new TableScanSplit(splitId, bucket, snapshot, rows);
    }
}
