package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import java.time.Duration;
import java.util.ArrayList;
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
     * What the run did to {@code table} (as the user named it), as the command-line tool and the
     * catalog's procedure print it: a line per shard, then a summary.
     */
    public List<String> describe(String table) {
        List<String> lines = new ArrayList<>();
        for (ShardResult s : shards) {
            lines.add("shard " + s.shardId() + ": merged generations " + s.mergedGenerations() + " (" + s.rowsUpserted()
                    + " rows upserted, " + s.keysDeleted() + " keys deleted), merged through " + s.mergedThrough()
                    + s.stoppedBecause().map(r -> "; stopped at " + r).orElse(""));
        }
        lines.add("Compacted " + table + ": " + mergedGenerations() + " generations merged over " + shards.size()
                + " shards in " + duration.toMillis() + " ms, base version " + baseVersion);
        return lines;
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
