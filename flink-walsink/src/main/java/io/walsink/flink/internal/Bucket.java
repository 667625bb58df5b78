package io.walsink.flink.internal;

import io.walsink.shard.ShardWriter;

/**
 * What the operator keeps for one bucket it owns: the shard's writer and the bookkeeping around
 * it, in one place rather than in maps keyed by bucket.
 */
final class Bucket {
    /** Rows of one shard between two looks at its memory; a look walks the memtables' buffers. */
    static final int ROWS_PER_BUDGET_CHECK = 64;

    final int id;
    final ShardWriter shard;
    /** Due time of this bucket's ticker timer, or null when none is armed. */
    Long armedTimer;
    /** Highest generation a completed checkpoint (or, without checkpoints, a flush) asked to publish. */
    Long publishUpTo;
    /** When the oldest row not yet in an append arrived, for the durable-lag histogram. */
    Long oldestPendingSince;
    /** When the first row of each unpublished memtable arrived. */
    final MemtableAges ages = new MemtableAges();
    /** {@link ShardWriter#heldBytes()} when {@link SubtaskMemory} last measured it. */
    long measuredBytes;

    private int rowsSinceBudgetCheck;

    Bucket(int id, ShardWriter shard) {
        this.id = id;
        this.shard = shard;
    }

    /** Counts a row; true every {@link #ROWS_PER_BUDGET_CHECK}th row of this bucket. */
    boolean budgetCheckDue() {
        if (++rowsSinceBudgetCheck < ROWS_PER_BUDGET_CHECK) {
            return false;
        }
        rowsSinceBudgetCheck = 0;
        return true;
    }

    void requestPublication(long upToGeneration) {
        publishUpTo = publishUpTo == null ? upToGeneration : Math.max(publishUpTo, upToGeneration);
    }
}
