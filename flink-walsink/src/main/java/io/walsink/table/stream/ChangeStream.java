package io.walsink.table.stream;

import io.walsink.annotation.Internal;
import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.read.ReadMode;
import io.walsink.read.scan.GenerationLog;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.table.scan.TableScan;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * What one continuous read follows: the table and columns (as the bounded scan's {@link
 * TableScan}), where it starts, how often it looks for new generations, and whether the table is
 * keyed (an upsert changelog) or append-only (inserts). Shipped with the job.
 *
 * @param consumerId null, or the name under which the read records its progress at every
 *     completed checkpoint for garbage collection to respect ({@link ConsumerProgress})
 */
@Internal
public record ChangeStream(
        TableScan scan, StartupMode startup, Duration discoveryInterval, boolean keyed, String consumerId)
        implements Serializable {

    public ChangeStream(TableScan scan, StartupMode startup, Duration discoveryInterval, boolean keyed) {
        this(scan, startup, discoveryInterval, keyed, null);
    }

    public ChangeStream {
        if (consumerId != null) {
            ConsumerRecord.requireName(consumerId, "consumer id");
        }
        Objects.requireNonNull(scan, "scan");
        if (!startup.continuous()) {
            throw new IllegalArgumentException("a continuous read needs a continuous startup mode, was " + startup);
        }
        if (scan.mode() != ReadMode.COMMITTED) {
            // Published generations are all it follows; a WAL tail read once would be read again
            // as the generation that later holds it.
            throw new IllegalArgumentException(
                    "a continuous read follows published generations only, not " + scan.mode());
        }
        if (discoveryInterval.isZero() || discoveryInterval.isNegative()) {
            throw new IllegalArgumentException("discovery interval must be positive, was " + discoveryInterval);
        }
    }

    /**
     * Pins the snapshot, once, when the read starts, and cuts it into the bounded scan's splits;
     * each shard's cursor starts after the last generation the snapshot holds, so the snapshot
     * and the changes after it meet without a gap or an overlap. Startup mode latest keeps the
     * cursors and leaves out the snapshot rows.
     */
    public List<ChangeSplit> splits() {
        TableSnapshot snapshot = scan.pin();
        Map<UUID, Long> covered;
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = ObjectStores.open(scan.path(), scan.s3())) {
            covered = log(store, allocator).coveredBy(snapshot);
        }
        return scan.bucketSplits(snapshot).stream()
                .map(split -> new ChangeSplit(
                        split.splitId(),
                        startup == StartupMode.INITIAL ? split : null,
                        split.bucket() == null
                                ? PinnedShard.NO_BUCKET
                                : split.bucket().bucket(),
                        split.snapshot().shards().stream()
                                .map(s -> new ShardCursor(
                                        s.shardId(), s.manifestVersion(), covered.get(s.shardId()), List.of(), 0))
                                .toList()))
                .toList();
    }

    GenerationLog log(ObjectStore store, BufferAllocator allocator) {
        return new GenerationLog(scan.location(store), allocator);
    }
}
