package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What one {@link Compactor} run did.
 *
 * @param tableUri the table compacted
 * @param shards per shard looked at, in shard id order (shards with nothing to merge included)
 * @param baseVersion the base table's version when the run ended
 * @param fileCompactionRan whether lance-core's file compaction ran
 * @param cleanedUpVersions old base table versions removed, when cleanup ran
 * @param duration the whole run
 */
@PublicEvolving
public record CompactionResult(
        String tableUri,
        List<ShardResult> shards,
        long baseVersion,
        boolean fileCompactionRan,
        Optional<Long> cleanedUpVersions,
        Duration duration) {

    public CompactionResult {
        shards = List.copyOf(shards);
    }

    /** Generations merged in this run, over all shards. */
    public int mergedGenerations() {
        return shards.stream().mapToInt(s -> s.mergedGenerations().size()).sum();
    }

    /**
     * One shard's part of a run.
     *
     * @param shardId the shard
     * @param mergedGenerations generations merged in this run, oldest first
     * @param mergedThrough the highest generation of the shard merged into the base table after this
     *     run (0: none)
     * @param rowsUpserted rows inserted or updated in the base table
     * @param keysDeleted tombstones applied (keys the base table may or may not have held)
     * @param stoppedBecause why the shard's run ended before merging every listed generation, if it did
     * @param duration time spent on the shard
     */
    public record ShardResult(
            UUID shardId,
            List<Long> mergedGenerations,
            long mergedThrough,
            long rowsUpserted,
            long keysDeleted,
            Optional<String> stoppedBecause,
            Duration duration) {

        public ShardResult {
            mergedGenerations = List.copyOf(mergedGenerations);
        }
    }
}
