package io.walsink.table.stream;

import io.walsink.annotation.Internal;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.table.scan.TableScanSplit;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One bucket of a continuous read (or the whole table, when it cannot be read by bucket): the
 * snapshot rows of that bucket still to emit, then its shards' cursors. Both live in one split so
 * one reader emits a key's snapshot row before any of its changes, and a bucket's changes in
 * generation order.
 *
 * @param snapshot the bounded scan split still to emit, null once emitted (or with startup mode latest)
 * @param bucket the bucket read, {@link PinnedShard#NO_BUCKET} for the whole table; a shard
 *     appearing later joins the split whose bucket its manifest names
 */
@Internal
public record ChangeSplit(String splitId, TableScanSplit snapshot, int bucket, List<ShardCursor> shards)
        implements SourceSplit {

    public ChangeSplit {
        Objects.requireNonNull(splitId, "splitId");
        shards = List.copyOf(shards);
    }

    @Override
    public String splitId() {
        return splitId;
    }

    boolean wholeTable() {
        return bucket == PinnedShard.NO_BUCKET;
    }
}
