package io.walsink.shard.driver;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Which shards write their active memtable as an SSTable for a checkpoint: those holding rows older
 * than the age limit, at most a budget of them, oldest first. A shard that writes starts its next
 * memtable after every shard left waiting, so the wait is first in, first out: with {@code n} shards
 * past the age at every checkpoint, each writes within {@code ceil(n / budget)} checkpoints. The
 * budget bounds the generations an owner writes (and compaction merges) per checkpoint, whatever its
 * shard count; memtables that froze full are written regardless, since memory needs them gone.
 */
final class AgedFirst {
    private AgedFirst() {}

    static List<ShardDriver> choose(Collection<ShardDriver> shards, long now, long maxAgeMillis, int budget) {
        if (budget < 1) {
            throw new IllegalArgumentException("the budget of SSTables per checkpoint must be positive, was " + budget);
        }
        return shards.stream()
                .filter(d -> d.activeOlderThan(now, maxAgeMillis))
                .sorted(Comparator.comparingLong(ShardDriver::activeSince))
                .limit(budget)
                .toList();
    }

    /** Checkpoints a shard's rows wait at most before they are published, with {@code shards} owned. */
    static int checkpointsToVisibility(int shards, int budget) {
        return Math.max(1, (shards + budget - 1) / budget);
    }
}
