package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.io.ManifestUpdate;
import io.walsink.shard.io.MergedDrops;
import io.walsink.shard.io.ShardHealth;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.io.ShardStats;
import io.walsink.shard.io.SsTableFlush;
import io.walsink.shard.io.SsTableFlusher;
import io.walsink.shard.io.SsTablePublisher;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.io.WalAppend;
import io.walsink.shard.io.WalAppender;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.MemtableSet;
import io.walsink.shard.memtable.RowKeys;
import io.walsink.shard.memtable.RowWriter;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The writer of one MemWAL shard: rows go into the active memtable; a ticker-driven appender
 * moves them to the WAL, oldest memtable first; full memtables freeze and become SSTables;
 * the owner decides when SSTables are published.
 *
 * <p>Threading: every method runs on the owner's thread. The only work meant for another thread
 * is the {@code run()} of a {@link WalAppend}, {@link SsTableFlush} or {@link ManifestUpdate},
 * which the owner obtains from {@link #beginAppend()}, {@link #beginFlush()} or
 * {@link #beginPublish} and hands back to {@link #completeAppend}, {@link #completeFlush} or
 * {@link #completeManifestUpdate}. At most one of each is in flight, which is what makes WAL
 * positions follow append order. Time enters only as arguments ({@link #recordTick},
 * {@link #nextTickAt}).
 *
 * <p>The first terminal failure poisons the writer: every later call throws the same
 * {@link ShardPoisonedException}; the way back is a new open.
 *
 * <p>Rows enter through a {@link RowIntake}; what a checkpoint records and a restore sets back is
 * a {@link CheckpointState}. Open a writer with {@link ShardOpener}.
 */
@Internal
public final class ShardWriter implements AutoCloseable {
    private final TableContext ctx;
    private final long epoch;
    private final ShardStats stats = new ShardStats();
    private final ShardHealth health;
    private final WalAppender appender;
    private final SsTablePublisher publisher;
    private final SsTableFlusher flusher;
    private final MemtableSet memtables;
    private final FlushTicker ticker;
    private final RowIntake intake;
    private final CheckpointState checkpoint;
    private final RowKeys rowKeys; // RowKeys.NONE unless the table generates row keys

    ShardWriter(
            TableContext ctx,
            UUID shardId,
            int bucket,
            ShardManifest claimed,
            ManifestStore manifests,
            WalLog wal,
            long nextPosition,
            long firstGeneration) {
        this.ctx = ctx;
        this.epoch = claimed.writerEpoch();
        this.health = new ShardHealth(shardId);
        this.appender = new WalAppender(
                shardId,
                epoch,
                wal,
                ctx.codec(),
                manifests,
                health,
                stats,
                nextPosition,
                Math.max(claimed.replayAfterWalEntryPosition(), nextPosition - 1));
        this.publisher = new SsTablePublisher(
                shardId,
                claimed,
                manifests,
                health,
                stats,
                () -> ctx.mergeProgress(shardId),
                new MergedDrops(ctx.config().keepMergedFor(), System::nanoTime));
        SsTableWriter sstables =
                new SsTableWriter(ctx.location(), shardId, ctx.storage(), ctx.allocator(), ctx.maintainedIndexes());
        this.rowKeys = ctx.rowKeys(bucket);
        this.memtables = new MemtableSet(ctx.newMemtable(Math.max(1, firstGeneration), rowKeys));
        this.flusher = new SsTableFlusher(shardId, sstables, memtables, publisher, health, stats);
        this.ticker = new FlushTicker(ctx.config().flushInterval());
        this.intake = new RowIntake(ctx, shardId, memtables, health, stats, rowKeys);
        this.checkpoint = new CheckpointState(shardId, bucket, epoch, health, appender, publisher, memtables);
    }

    // ---------------------------------------------------------------- identity and state

    /** The generated row keys of the shard's memtables ({@link RowKeys#NONE} unless the table has them). */
    RowKeys rowKeys() {
        return rowKeys;
    }

    public long epoch() {
        return epoch;
    }

    public ShardStats stats() {
        return stats;
    }

    /** The latest manifest this writer read or wrote. */
    public ShardManifest manifest() {
        return publisher.manifest();
    }

    /** Last WAL position holding rows of this writer's state (or its sentinel). */
    public long durablePosition() {
        return appender.durablePosition();
    }

    /** The next WAL position this writer will append at. */
    public long nextPosition() {
        return appender.nextPosition();
    }

    public Optional<ShardPoisonedException> poison() {
        return health.poison();
    }

    /** Rows put but not yet in the WAL, over all memtables. */
    public long pendingRows() {
        return memtables.pendingRows();
    }

    public long pendingBytes() {
        return memtables.pendingBytes();
    }

    public boolean hasPendingRows() {
        return memtables.hasPendingRows();
    }

    /** Bytes held in memtables not yet written as SSTables. */
    public long unflushedBytes() {
        return memtables.unflushedBytes();
    }

    /**
     * Whether the owner should stop feeding rows until SSTable flushes catch up: memtables not yet
     * in SSTables plus the encode buffer of the append in flight.
     */
    public boolean overBudget() {
        return heldBytes() > ctx.config().maxUnflushedBytes();
    }

    /** Memory this shard holds: memtables not yet in SSTables and the encode buffer of an append in flight. */
    public long heldBytes() {
        return unflushedBytes() + appender.inFlightBufferBytes();
    }

    public int frozenMemtables() {
        return memtables.frozenCount();
    }

    public List<WrittenSsTable> unpublished() {
        return publisher.unpublished();
    }

    // ---------------------------------------------------------------- writing rows (RowIntake)

    /** Upserts every row of {@code rows} (or appends, for a table without a key). */
    public void put(VectorSchemaRoot rows) {
        intake.writeAll(rows, false);
    }

    /** Deletes the keys of every row of {@code rows}; values other than the key are ignored. */
    public void delete(VectorSchemaRoot rows) {
        intake.writeAll(rows, true);
    }

    /** Upserts or deletes one row of {@code rows}: the per-record path of a streaming owner. */
    public void write(VectorSchemaRoot rows, int row, boolean delete) {
        intake.write(rows, row, delete);
    }

    /**
     * Upserts or deletes one row that {@code row} writes straight into the active memtable: the
     * per-record path of a streaming owner, one copy from the source record. The owner checks
     * the writer's schema once ({@link TableContext#checkRowSchema}).
     *
     * @return whether the active memtable froze after this row (it was full)
     */
    public boolean write(RowWriter row, boolean delete) {
        return intake.write(row, delete);
    }

    /** Freezes the active memtable (if it has rows) and starts the next generation. */
    public void freezeActive() {
        intake.freezeActive();
    }

    // ---------------------------------------------------------------- WAL appends

    /**
     * Whether rows should be appended before the next tick: a frozen memtable still owes its
     * tail, or pending bytes passed {@code sink.wal.max-buffer-size}.
     */
    public boolean wantsEarlyAppend() {
        if (appender.inFlight() || health.poison().isPresent()) {
            return false;
        }
        // Frozen memtables come first, so the oldest one owing rows is frozen if any frozen one is.
        Optional<Memtable> oldest = memtables.oldestPending();
        return oldest.isPresent()
                && (oldest.get().isFrozen()
                        || oldest.get().pendingBytes() >= ctx.config().walMaxBufferBytes());
    }

    /** When the next tick is due, or {@link Long#MAX_VALUE} when nothing is pending (no timer). */
    public long nextTickAt(long nowMillis) {
        return nextTickAt(nowMillis, 0);
    }

    /** As {@link #nextTickAt(long)}, ticks at least {@code spacingMillis} apart ({@link FlushTicker#dueAt(long, long)}). */
    public long nextTickAt(long nowMillis, long spacingMillis) {
        return hasPendingRows() ? ticker.dueAt(nowMillis, spacingMillis) : Long.MAX_VALUE;
    }

    /**
     * Records that the owner's timer fired at {@code nowMillis}, so the next tick is due one
     * interval later ({@link #nextTickAt}); the owner starts the append itself.
     */
    public void recordTick(long nowMillis) {
        ticker.ticked(nowMillis);
    }

    /**
     * Prepares the append of the oldest memtable's pending batches, chosen now rather than when
     * the append was requested: a freeze in between must not let newer rows overtake older ones.
     *
     * @return empty if an append is in flight or nothing is pending
     */
    public Optional<WalAppend> beginAppend() {
        health.check();
        return appender.begin(memtables);
    }

    /**
     * Applies the outcome of {@code append}: rows become durable, or the position was taken (the
     * rows stay pending for the next position, unless a higher epoch fenced us), or the writer
     * is poisoned.
     *
     * @throws ShardPoisonedException if the append failed terminally
     */
    public void completeAppend(WalAppend append) {
        appender.complete(append);
    }

    public boolean appendInFlight() {
        return appender.inFlight();
    }

    /** Appends until nothing is pending, inline (restore re-appends the checkpoint's rows). */
    void appendAllPending() {
        health.check();
        appender.appendAll(memtables);
    }

    // ---------------------------------------------------------------- SSTables

    public boolean flushInFlight() {
        return flusher.inFlight();
    }

    /** Whether the oldest frozen memtable is fully durable and can become an SSTable now. */
    public boolean hasFlushableMemtable() {
        return flusher.hasFlushableMemtable();
    }

    /**
     * Prepares writing the oldest frozen memtable as an SSTable, once all its rows are durable
     * (an SSTable must never hold rows the WAL does not).
     */
    public Optional<SsTableFlush> beginFlush() {
        health.check();
        return flusher.begin();
    }

    /**
     * Whether the last {@link #beginFlush()} had a memtable to write but the off-heap cap no room
     * for the write's reservation: it waits until other writes give memory back.
     */
    public boolean flushWaitsForMemory() {
        return flusher.waitsForMemory();
    }

    /**
     * As {@link #beginFlush()}, reserving only what the cap has left if that is less than the
     * write may need: for an owner with no I/O in flight that could give memory back.
     */
    public Optional<SsTableFlush> beginFlushWithWhatIsLeft() {
        health.check();
        return flusher.beginWithWhatIsLeft();
    }

    /** @throws ShardPoisonedException if writing failed (the frozen memtable is kept) */
    public void completeFlush(SsTableFlush flush) {
        flusher.complete(flush);
    }

    // ---------------------------------------------------------------- publication

    public boolean manifestUpdateInFlight() {
        return publisher.inFlight();
    }

    /**
     * Prepares publishing the written SSTables of generations up to {@code upToGeneration}: one
     * manifest version that lists them and moves {@code replay_after} past their WAL range.
     *
     * @return empty if nothing qualifies or a manifest update is in flight
     */
    public Optional<ManifestUpdate> beginPublish(long upToGeneration) {
        health.check();
        return publisher.begin(upToGeneration, appender.nextPosition() - 1);
    }

    /** @throws ShardPoisonedException if the update failed or a higher epoch fenced us */
    public void completeManifestUpdate(ManifestUpdate update) {
        publisher.complete(update);
    }

    // ---------------------------------------------------------------- opening (ShardOpener, WalReplay)

    MemtableSet memtables() {
        return memtables;
    }

    /** The checkpointed state: what a snapshot records and what opening or restoring sets. */
    CheckpointState checkpoint() {
        return checkpoint;
    }

    ShardPoisonedException poison(Reason reason, String message, Throwable cause) {
        return health.poison(reason, message, cause);
    }

    // ---------------------------------------------------------------- checkpoints and shutdown

    /**
     * The descriptor of this shard for a checkpoint. Every row put so far must be durable: the
     * owner appends everything pending before the barrier, since the descriptor stores WAL
     * positions, not rows.
     */
    public ShardDescriptor snapshot() {
        return checkpoint.snapshot();
    }

    /**
     * Releases memory without any I/O. Rows not yet appended are dropped, exactly as in a crash;
     * the owner appends them first (and writes and publishes SSTables) to keep them.
     */
    @Override
    public void close() {
        if (health.close()) {
            flusher.close();
            memtables.close();
        }
    }
}
