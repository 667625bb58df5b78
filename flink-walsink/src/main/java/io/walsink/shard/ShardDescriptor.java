package io.walsink.shard;

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
 * @param unpublished SSTables written but not yet published, in generation order
 */
public record ShardDescriptor(
        UUID shardId,
        int bucket,
        long epoch,
        long replayAfter,
        long durablePosition,
        long currentGeneration,
        List<WrittenSsTable> unpublished) {

    public ShardDescriptor {
        unpublished = List.copyOf(unpublished);
        if (durablePosition < replayAfter) {
            throw new IllegalArgumentException("durable position " + durablePosition
                    + " is before replay_after " + replayAfter + " for shard " + shardId);
        }
        long previous = 0;
        for (WrittenSsTable t : unpublished) {
            if (t.generation() <= previous) {
                throw new IllegalArgumentException("unpublished SSTables of shard " + shardId + " are not in generation order");
            }
            if (t.lastWalPosition() > durablePosition) {
                throw new IllegalArgumentException("SSTable " + t.path() + " covers WAL position " + t.lastWalPosition()
                        + " beyond the durable position " + durablePosition);
            }
            previous = t.generation();
        }
    }
}
