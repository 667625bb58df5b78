package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.scan.ScanPosition;
import io.walsink.read.scan.SnapshotPart;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.TableSnapshot;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a table scan: a part of the snapshot the enumerator pinned when the scan started
 * ({@link SnapshotPart}: base fragments, streamed, without the keys the unmerged part overrides,
 * and/or the unmerged part of some shards), and how far it was read.
 *
 * <p>{@code position} is what a checkpoint records: a base fragment and a row offset in it, or a
 * count of the unmerged part's live rows. A split's rows are a function of its snapshot and part
 * (same rows, same order), so a restored reader opens the fragment scan at that offset and
 * resumes at exactly the next row, whatever was written to the table in between. If the
 * snapshot's objects were garbage-collected meanwhile, the read fails instead (see {@link
 * TableSnapshot}).
 *
 * @param snapshot the pinned versions: all shards for a split whose base rows must leave out any
 *     shard's keys, only its bucket's shards for a bucket split
 */
@Internal
public record TableScanSplit(String splitId, TableSnapshot snapshot, SnapshotPart part, ScanPosition position)
        implements SourceSplit {
    public static final String WHOLE_TABLE = "table";

    public TableScanSplit {
        Objects.requireNonNull(splitId, "splitId");
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(part, "part");
        Objects.requireNonNull(position, "position");
    }

    /** The whole table as one split: every base row and every shard. */
    public static TableScanSplit wholeTable(TableSnapshot snapshot) {
        return new TableScanSplit(WHOLE_TABLE, snapshot, SnapshotPart.whole(null), ScanPosition.START);
    }

    /** One bucket: its base rows and its shards, merged. */
    public static TableScanSplit of(BucketSelection bucket, TableSnapshot snapshot) {
        return new TableScanSplit(
                "bucket-" + bucket.bucket(),
                snapshot.forBucket(bucket.bucket()),
                SnapshotPart.whole(bucket),
                ScanPosition.START);
    }

    /**
     * Base fragments {@code fragments} (group {@code index}) without the keys any shard's
     * unmerged part holds: the snapshot keeps every shard.
     */
    public static TableScanSplit baseFragments(int index, List<Integer> fragments, TableSnapshot snapshot) {
        return new TableScanSplit(
                "base-" + index, snapshot, new SnapshotPart(null, fragments, false), ScanPosition.START);
    }

    /** The live unmerged rows of {@code bucket}'s shards (of every shard when null), no base rows. */
    public static TableScanSplit unmerged(BucketSelection bucket, TableSnapshot snapshot) {
        return new TableScanSplit(
                bucket == null ? "unmerged" : "unmerged-" + bucket.bucket(),
                bucket == null ? snapshot : snapshot.forBucket(bucket.bucket()),
                new SnapshotPart(bucket, List.of(), true),
                ScanPosition.START);
    }

    @Override
    public String splitId() {
        return splitId;
    }

    /** The bucket whose base rows the split reads, or null for every bucket. */
    public BucketSelection bucket() {
        return part.bucket();
    }

    /** The same split, read up to {@code to}. */
    public TableScanSplit at(ScanPosition to) {
        return new TableScanSplit(splitId, snapshot, part, to);
    }
}
