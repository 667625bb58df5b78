package io.walsink.table.stream;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.storage.ObjectStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer records of one reader's splits ({@code scan.consumer-id}): what a checkpoint's
 * state still needs is noted when the checkpoint is taken and written only once Flink reports it
 * complete, so a record never claims progress a restore could go back behind. A restore always
 * starts from a completed checkpoint at least as new as the last record written.
 */
final class ConsumerProgress {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerProgress.class);

    private final ObjectStore store;
    private final String consumerId;
    private final Clock clock;
    /** Per checkpoint taken and not yet completed or subsumed: its splits' needs, without the time. */
    private final NavigableMap<Long, List<ChangeSplit>> taken = new TreeMap<>();

    ConsumerProgress(ObjectStore store, String consumerId, Clock clock) {
        this.store = store;
        this.consumerId = consumerId;
        this.clock = clock;
    }

    void checkpointTaken(long checkpointId, List<ChangeSplit> state) {
        taken.put(checkpointId, List.copyOf(state));
    }

    /**
     * Writes the records of the newest checkpoint taken at or before {@code checkpointId} (Flink
     * may report only the newest of several completed ones) and forgets the older ones. A failed
     * write leaves the older record, which asks garbage collection to keep more, not less.
     */
    void checkpointCompleted(long checkpointId) {
        Map.Entry<Long, List<ChangeSplit>> done = taken.floorEntry(checkpointId);
        if (done == null) {
            return;
        }
        taken.headMap(checkpointId, true).clear();
        for (ChangeSplit split : done.getValue()) {
            try {
                ConsumerRecords.write(store, record(split));
            } catch (RuntimeException e) {
                LOG.warn(
                        "Could not write the record of consumer '{}' for split {} of checkpoint {}; the previous"
                                + " record stays, and the next completed checkpoint writes it again",
                        consumerId,
                        split.splitId(),
                        done.getKey(),
                        e);
            }
        }
    }

    void checkpointAborted(long checkpointId) {
        taken.remove(checkpointId);
    }

    /** The record of one split: its snapshot's base version while snapshot rows remain, and per shard its cursor. */
    ConsumerRecord record(ChangeSplit split) {
        OptionalLong base = split.snapshot() == null
                ? OptionalLong.empty()
                : OptionalLong.of(split.snapshot().snapshot().baseVersion());
        List<ConsumerRecord.Position> shards = new ArrayList<>();
        for (ShardCursor c : split.shards()) {
            long version = c.manifestVersion();
            if (split.snapshot() != null) {
                for (PinnedShard pinned : split.snapshot().snapshot().shards()) {
                    if (pinned.shardId().equals(c.shardId()) && pinned.manifestVersion() > 0) {
                        version = Math.min(version, pinned.manifestVersion());
                    }
                }
            }
            // The next walk reads the versions after the cursor's; keeping its own costs one object.
            shards.add(new ConsumerRecord.Position(c.shardId(), Math.max(1, version), c.emittedThrough()));
        }
        return new ConsumerRecord(consumerId, split.splitId(), split.bucket(), clock.instant(), base, shards);
    }
}
