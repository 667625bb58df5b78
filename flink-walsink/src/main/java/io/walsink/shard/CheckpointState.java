package io.walsink.shard;

import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.shard.io.MergeProgress;
import io.walsink.shard.io.ShardHealth;
import io.walsink.shard.io.SsTablePublisher;
import io.walsink.shard.io.WalAppender;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.MemtableSet;
import java.util.List;
import java.util.UUID;

/**
 * What a checkpoint of a {@link ShardWriter} records and what opening or restoring one sets: the
 * WAL position its rows are durable through, the SSTables published and not yet published, and
 * the base table version the published list was cut by. {@link ShardOpener}, {@link WalReplay} and
 * {@link BaseVersionRefresh} reach it through {@link ShardWriter#checkpoint()}; the owner only
 * takes {@link ShardWriter#snapshot()}.
 *
 * <p>Runs on the owner's thread, like every call of the writer it belongs to.
 */
final class CheckpointState {
    private final UUID shardId;
    private final int bucket;
    private final long epoch;
    private final ShardHealth health;
    private final WalAppender appender;
    private final SsTablePublisher publisher;
    private final MemtableSet memtables;
    private final long openedNanos;

    CheckpointState(
            UUID shardId,
            int bucket,
            long epoch,
            ShardHealth health,
            WalAppender appender,
            SsTablePublisher publisher,
            MemtableSet memtables) {
        this.shardId = shardId;
        this.bucket = bucket;
        this.epoch = epoch;
        this.health = health;
        this.appender = appender;
        this.publisher = publisher;
        this.memtables = memtables;
        this.openedNanos = System.nanoTime(); // the shard is claimed by now
    }

    /**
     * The descriptor of the shard for a checkpoint. Every row put so far must be durable: the
     * owner appends everything pending before the barrier, since the descriptor stores WAL
     * positions, not rows.
     */
    ShardDescriptor snapshot() {
        health.check();
        if (appender.inFlight() || memtables.hasPendingRows()) {
            throw new IllegalStateException(
                    "shard " + shardId + " has rows not yet in the WAL; append them before a snapshot");
        }
        // The manifest and the published generation change together (SsTablePublisher), so this
        // version lists exactly the SSTables published as of this descriptor.
        ShardManifest manifest = publisher.manifest();
        return new ShardDescriptor(
                shardId,
                bucket,
                epoch,
                manifest.replayAfterWalEntryPosition(),
                Math.max(appender.durablePosition(), manifest.replayAfterWalEntryPosition()),
                memtables.active().generation(),
                publisher.publishedGeneration(),
                manifest.version(),
                publisher.baseVersion(),
                publisher.unpublished());
    }

    /** Replayed entries up to {@code position} count as durable. */
    void durableAtLeast(long position) {
        appender.durableAtLeast(position);
    }

    /** Writes a manifest with exactly {@code sstables} and {@code replayAfter}, inline (restore). */
    void writeManifest(List<SsTable> sstables, long replayAfter) {
        health.check();
        publisher.writeInline(sstables, replayAfter, appender.nextPosition() - 1);
    }

    /** The state a restore arrived at: durable through {@code durable}, with these SSTables unpublished. */
    void restored(long durable, List<WrittenSsTable> stillUnpublished) {
        appender.restoredDurable(durable);
        publisher.restored(stillUnpublished);
    }

    /** The merge progress the claimed (or restored) manifest's list was cut by. */
    void basedOn(MergeProgress progress) {
        publisher.basedOn(progress);
    }

    /** When the read of the base version a snapshot would record began (System.nanoTime). */
    long baseVersionReadAtNanos() {
        return publisher.basedAtNanos();
    }

    /**
     * Takes a newer base table version for the next snapshot, read by {@link BaseVersionRefresh}
     * starting at {@code readStartedNanos}; ignored if that read began before this writer claimed the
     * shard (the version could hold merges of a rolled-back attempt).
     */
    void newerBaseVersion(long version, long readStartedNanos) {
        if (readStartedNanos - openedNanos >= 0) {
            publisher.basedOnNewer(version, readStartedNanos);
        }
    }
}
