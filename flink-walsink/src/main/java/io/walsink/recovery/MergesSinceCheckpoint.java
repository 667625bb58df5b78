package io.walsink.recovery;

import io.walsink.format.manifest.SsTable;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.MergeProgress;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What the compactor merged of a shard since a checkpoint being restored, as the base table's merge
 * progress, the merge journal and the shard's resets tell it, and whether the base table holds rows
 * the checkpoint does not: generations merged above the checkpoint's (another branch's, or a later
 * attempt's), a merge of a generation outside the checkpoint that a compactor started and did not
 * finish, a reset of the shard's rows that an earlier restore began and did not finish, or one that
 * finished after the checkpoint's base version (it replaced rows without raising the progress). Merges
 * of the checkpoint's own SSTables, finished or not, need nothing: applying its SSTables in
 * generation order again over them ends the same.
 */
record MergesSinceCheckpoint(MergeProgress progress, List<MergeJournal.Entry> foreign, String reason) {

    static MergesSinceCheckpoint examine(TableContext ctx, ShardDescriptor asOf, List<SsTable> state) {
        UUID shard = asOf.shardId();
        MergeProgress progress = ctx.mergeProgress(shard);
        if (!progress.known()) {
            throw new IllegalStateException("cannot read the merge progress of shard " + shard + " from the base table "
                    + ctx.table().uri()
                    + "; a restore needs it to know what the compactor merged (see the warning above)");
        }
        long merged = progress.mergedThrough();
        List<MergeJournal.Entry> foreign = new MergeJournal(ctx.store())
                .entries(shard).stream()
                        .filter(e -> e.generation() > merged)
                        .filter(e -> state.stream()
                                .noneMatch(t -> t.generation() == e.generation()
                                        && t.path().equals(e.path())))
                        .toList();
        String reason = null;
        ShardResets resets = new ShardResets(ctx.store());
        Optional<ShardResets.Unfinished> unfinished = resets.read(shard);
        long lastReset = resets.lastResetAt(shard);
        if (unfinished.isPresent()) {
            reason = "a restore (epoch " + unfinished.get().epoch() + ") began resetting its rows in the base table"
                    + " to version " + unfinished.get().baseVersion() + " and did not finish";
        } else if (lastReset > asOf.baseVersion()) {
            reason = "a restore reset its rows in the base table at version " + lastReset
                    + ", after the version the state being restored builds on (" + asOf.baseVersion() + ")";
        } else if (merged > asOf.coveredGeneration()) {
            reason = "the base table holds its generations through " + merged + ", newer than the state being restored"
                    + " (through " + asOf.coveredGeneration() + ")";
        } else if (!foreign.isEmpty()) {
            reason = "a compactor started merging generation " + foreign.get(0).generation() + " ("
                    + foreign.get(0).path() + "), which the state being restored does not hold, and did not finish";
        }
        return new MergesSinceCheckpoint(progress, foreign, reason);
    }

    /** Whether the base table holds rows of the shard that the checkpoint does not. */
    boolean mergedPast() {
        return reason != null;
    }

    /** The merges the base table holds, or may hold part of, that a reset rolled back: no longer pending. */
    void forgetForeign(TableContext ctx, UUID shard) {
        MergeJournal journal = new MergeJournal(ctx.store());
        for (MergeJournal.Entry e : foreign) {
            journal.finished(shard, e.generation());
        }
    }
}
