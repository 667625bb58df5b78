package io.walsink.flink.internal.state;

import io.walsink.annotation.Internal;
import io.walsink.shard.BaseVersionRefresh;
import io.walsink.shard.TableContext;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;

/**
 * Keeps the shards in step with Flink's checkpoints. Before a barrier every row is made durable
 * and memtables older than {@code sink.memtable.max-age} become SSTables, up to {@code
 * sink.memtable.max-aged-per-checkpoint} of them, oldest first; the snapshot stores each
 * shard's descriptor (WAL positions, not rows) and notes which SSTables the checkpoint covers
 * ({@link PublicationLedger}); its completion publishes them. A stop-with-savepoint covers every
 * row as an SSTable, since no later checkpoint will publish what young memtables hold.
 */
@Internal
public final class CheckpointAlignment {
    private final ShardDrivers drivers;
    private final ShardDescriptorState descriptors;
    private final JobLineage lineage;
    private final TableContext table;
    private final long maxAgeMillis;
    private final int agedPerCheckpoint;
    private final PublicationLedger ledger = new PublicationLedger();
    /** A synchronous savepoint (stop-with-savepoint): the task may close right after it completes. */
    private long stoppingAt = -1;

    public CheckpointAlignment(
            ShardDrivers drivers,
            ShardDescriptorState descriptors,
            JobLineage lineage,
            TableContext table,
            long maxAgeMillis,
            int agedPerCheckpoint) {
        this.drivers = drivers;
        this.descriptors = descriptors;
        this.lineage = lineage;
        this.table = table;
        this.maxAgeMillis = maxAgeMillis;
        this.agedPerCheckpoint = agedPerCheckpoint;
    }

    public void beforeBarrier() throws InterruptedException {
        drivers.drainAppends();
        drivers.flushAged(maxAgeMillis, agedPerCheckpoint); // so this checkpoint publishes them
    }

    /** Rows are durable already (before the barrier), and no record arrives after it. */
    public void stopping(long checkpointId) throws InterruptedException {
        stoppingAt = checkpointId;
        drivers.writeEverything();
    }

    public void snapshot(long checkpointId) throws Exception {
        lineage.snapshot();
        BaseVersionRefresh.refreshStale(
                table, drivers.all().stream().map(ShardDriver::writer).toList());
        ledger.covered(checkpointId, descriptors.snapshot(drivers.all()));
    }

    /**
     * Publishes what the checkpoint covers; waits for it when the task closes right after (its
     * final checkpoint after the end of input, or a stop-with-savepoint, which closes without
     * {@code finish()}).
     */
    public void completed(long checkpointId, boolean inputEnded) throws InterruptedException {
        ledger.completed(checkpointId).forEach(drivers::requestPublication);
        if (inputEnded || checkpointId == stoppingAt) {
            drivers.awaitPublications();
        }
    }

    public void aborted(long checkpointId) {
        ledger.aborted(checkpointId);
    }
}
