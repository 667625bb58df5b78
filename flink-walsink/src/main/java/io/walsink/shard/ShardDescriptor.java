package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.shard.io.WrittenSsTable;
import java.util.List;
import java.util.UUID;

/**
 * What a checkpoint keeps of one shard: enough to reopen it exactly as of the checkpoint.
 *
 * <p>Rows are not part of it. Every row before a barrier is in the WAL, so the WAL range
 * {@code (replayAfter, durablePosition]} stands in for the memtables, and the state stays a few
 * dozen bytes per shard however large the memtables are.
 *
 * @param replayAfter last WAL position whose rows are all in SSTables published as of this state
 * @param durablePosition last WAL position holding rows of this state (0: none yet)
 * @param currentGeneration generation of the active memtable at the checkpoint
 * @param publishedGeneration highest SSTable generation published as of this state (0: none);
 *     SSTables a later attempt published above it are rolled back on restore
 * @param manifestVersion the shard manifest version whose SSTable list is exactly the SSTables
 *     published as of this state. Versions are immutable, so restore takes the list from there
 *     rather than from the current manifest, which a restore of an older state may have cut
 *     short. 0: not pinned (the empty state, or a descriptor of serializer version 1, which
 *     falls back to the current manifest's SSTables up to {@code publishedGeneration})
 * @param baseVersion the base table version this state builds on: the shard's rows there, then its
 *     SSTables above that version's merge progress, then its WAL range. A restore resets the
 *     shard's rows in the base table to this version when the compactor merged what the state does
 *     not hold (another branch's or a later attempt's generations, or part of one). 0: unknown (a
 *     descriptor of serializer version 2 or earlier, or no base version read yet)
 * @param unpublished SSTables written but not yet published, in generation order
 */
@Internal
public record ShardDescriptor(
        UUID shardId,
        int bucket,
        long epoch,
        long replayAfter,
        long durablePosition,
        long currentGeneration,
        long publishedGeneration,
        long manifestVersion,
        long baseVersion,
        List<WrittenSsTable> unpublished) {

    public ShardDescriptor {
        unpublished = List.copyOf(unpublished);
        if (manifestVersion < 0) {
            throw new IllegalArgumentException(
                    "manifest version " + manifestVersion + " of shard " + shardId + " must be >= 0");
        }
        if (durablePosition < replayAfter) {
            throw new IllegalArgumentException("durable position " + durablePosition + " is before replay_after "
                    + replayAfter + " for shard " + shardId);
        }
        long previous = publishedGeneration;
        for (WrittenSsTable t : unpublished) {
            if (t.generation() <= previous) {
                throw new IllegalArgumentException("unpublished SSTables of shard " + shardId
                        + " must follow the published generation " + publishedGeneration + " in generation order");
            }
            if (t.lastWalPosition() > durablePosition) {
                throw new IllegalArgumentException("SSTable " + t.path() + " covers WAL position " + t.lastWalPosition()
                        + " beyond the durable position " + durablePosition);
            }
            previous = t.generation();
        }
    }

    /** The state of a shard that had no rows at a checkpoint: restoring it rolls the shard back to empty. */
    public static ShardDescriptor empty(UUID shardId, int bucket) {
        return new ShardDescriptor(shardId, bucket, 0, 0, 0, 1, 0, 0, 0, List.of());
    }

    /** Whether the published SSTables are pinned by {@link #manifestVersion()}. */
    public boolean pinned() {
        return manifestVersion > 0;
    }

    /**
     * The highest generation whose rows this state holds. Every generation below the active one
     * was frozen before the checkpoint, so its rows are published (or merged into the base table
     * since, and dropped from the manifest), written, or in the WAL range a restore replays.
     * Generations are never given out twice, not even after a rollback, so a merged generation at
     * or below this one holds nothing the state lacks. Not the highest SSTable the state lists:
     * that is 0 once every SSTable was merged and dropped, however far the shard had come.
     */
    public long coveredGeneration() {
        long listed = unpublished.isEmpty()
                ? publishedGeneration
                : unpublished.get(unpublished.size() - 1).generation();
        return Math.max(currentGeneration - 1, listed);
    }

    /** Last WAL position held by SSTables as of this state, published or not. */
    public long flushedThrough() {
        return unpublished.isEmpty()
                ? replayAfter
                : unpublished.get(unpublished.size() - 1).lastWalPosition();
    }

    /** The same state of the same shard moved to another id ({@code walsink migrate-shard-ids}). */
    public ShardDescriptor withShardId(UUID id) {
        return new ShardDescriptor(
                id,
                bucket,
                epoch,
                replayAfter,
                durablePosition,
                currentGeneration,
                publishedGeneration,
                manifestVersion,
                baseVersion,
                unpublished);
    }
}
