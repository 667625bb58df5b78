package io.walsink.read.scan;

import io.walsink.annotation.Internal;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.TableSnapshot;
import java.io.Serializable;
import java.util.List;

/**
 * What one split of a scan reads of a pinned {@link TableSnapshot}: some of the base table's
 * fragments, streamed, each base row left out when its key has a row in the unmerged part of the
 * snapshot's shards (their published SSTables above the base's merge progress, and in
 * {@link ReadMode#LATEST} their WAL tail); then, if {@code unmerged}, those shards' live rows,
 * newest per key. The unmerged part is bounded by the writers' memtable budgets and compaction,
 * not by the table's size, so it is merged in memory; the base is never held.
 *
 * @param bucket base rows of this bucket only, or null for every base row
 * @param baseFragments Lance fragment ids to scan, in this order; null for every fragment of the
 *     pinned base version in the version's order
 * @param unmerged whether the shards' live rows are emitted after the base rows
 */
@Internal
public record SnapshotPart(BucketSelection bucket, List<Integer> baseFragments, boolean unmerged)
        implements Serializable {

    public SnapshotPart {
        baseFragments = baseFragments == null ? null : List.copyOf(baseFragments);
    }

    /** Every base row of {@code bucket} (every row when null) and the unmerged part: a whole bucket. */
    public static SnapshotPart whole(BucketSelection bucket) {
        return new SnapshotPart(bucket, null, true);
    }
}
