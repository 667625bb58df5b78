package io.walsink.recovery;

import io.walsink.annotation.Internal;
import java.util.UUID;

/**
 * Called before each commit of a generation's merge; a test hook that may throw to simulate a crash,
 * or stall a compactor between its last lease renewal and its commit.
 */
@Internal
public interface CommitHook {
    CommitHook NONE = (shard, generation, step) -> {};

    /** The two commits a generation may take; tests use it to stop a run between them. */
    enum Step {
        /** Deleting the keys of the generation's tombstones apart from its mark (when it also has rows to upsert, or the base table has a key index). */
        DELETES,
        /** Upserting the generation's rows (or its deletes, when it has no upserts) and marking it merged. */
        MERGE_AND_MARK
    }

    void beforeCommit(UUID shard, long generation, Step step);

    /** After the lease was renewed for the commit, just before it runs. */
    default void leaseRenewed(UUID shard, long generation, Step step) {}

    /** After a generation's keys were deleted with plain deletes (their own commits), before anything else commits. */
    default void keysDeleted(UUID shard, long generation) {}
}
