package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.MemtableSet;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL side of one shard writer: the next position to append at, the last durable one, and
 * the one append in flight, which is what makes WAL positions follow append order.
 */
@Internal
public final class WalAppender {
    private static final Logger LOG =
            LoggerFactory.getLogger("io.walsink.shard.ShardWriter"); // the writer's log category

    private final UUID shardId;
    private final long epoch;
    private final WalLog wal;
    private final WalEntryCodec codec;
    private final ManifestStore manifests;
    private final ShardHealth health;
    private final ShardStats stats;
    private long nextPosition;
    private long durablePosition;
    private WalAppend inFlight;

    public WalAppender(
            UUID shardId,
            long epoch,
            WalLog wal,
            WalEntryCodec codec,
            ManifestStore manifests,
            ShardHealth health,
            ShardStats stats,
            long nextPosition,
            long durablePosition) {
        this.shardId = shardId;
        this.epoch = epoch;
        this.wal = wal;
        this.codec = codec;
        this.manifests = manifests;
        this.health = health;
        this.stats = stats;
        this.nextPosition = nextPosition;
        this.durablePosition = durablePosition;
    }

    public long nextPosition() {
        return nextPosition;
    }

    public long durablePosition() {
        return durablePosition;
    }

    public void durableAtLeast(long position) {
        durablePosition = Math.max(durablePosition, position);
    }

    public void restoredDurable(long position) {
        durablePosition = position;
    }

    public boolean inFlight() {
        return inFlight != null;
    }

    /** At most what the append in flight copies onto the heap while it encodes (0 without one); a local file takes less. */
    public long inFlightBufferBytes() {
        return inFlight == null ? 0 : inFlight.bufferBytes;
    }

    /** See {@link io.walsink.shard.ShardWriter#beginAppend()}: the memtable is chosen now, not when the append was requested. */
    public Optional<WalAppend> begin(MemtableSet memtables) {
        if (inFlight != null) {
            return Optional.empty();
        }
        Optional<Memtable> oldest = memtables.oldestPending();
        if (oldest.isEmpty()) {
            return Optional.empty();
        }
        Memtable m = oldest.get();
        m.sealOpenBatch();
        inFlight = new WalAppend(wal, codec, manifests, m, m.pendingBatches(), nextPosition, epoch);
        return Optional.of(inFlight);
    }

    /** Appends until nothing is pending, inline. */
    public void appendAll(MemtableSet memtables) {
        if (inFlight != null) {
            throw new IllegalStateException("complete the append in flight first");
        }
        while (memtables.hasPendingRows()) {
            WalAppend append = begin(memtables).orElseThrow();
            append.run();
            complete(append);
        }
    }

    /** See {@link io.walsink.shard.ShardWriter#completeAppend}. */
    public void complete(WalAppend append) {
        append.checkHandedBack(inFlight);
        inFlight = null;
        health.check();
        Throwable failure = append.failure();
        if (failure == null) {
            append.memtable.markDurable(append.batches.size(), append.position);
            durablePosition = append.position;
            nextPosition = append.position + 1;
            stats.walAppends++;
            stats.walBytes += append.bytes();
            return;
        }
        String where = wal.key(append.position);
        if (failure instanceof ObjectAlreadyExistsException) {
            stats.walConflicts++;
            if (append.takenAtEpoch() > epoch) {
                throw health.poison(
                        Reason.FENCED,
                        "WAL position " + append.position + " is taken and the manifest names epoch "
                                + append.takenAtEpoch() + " (ours is " + epoch + ")",
                        failure);
            }
            LOG.warn(
                    "Shard {}: WAL position {} already taken by a writer of an epoch not above ours ({}); "
                            + "appending at the next position",
                    shardId,
                    append.position,
                    epoch);
            nextPosition = append.position + 1;
            return;
        }
        if (failure instanceof AmbiguousWriteException) {
            throw health.poison(Reason.AMBIGUOUS_APPEND, "outcome of the append to " + where + " is unknown", failure);
        }
        throw health.poison(Reason.PERSISTENCE_FAILURE, "append to " + where + " failed", failure);
    }
}
