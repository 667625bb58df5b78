package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.MemtableSet;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSTable side of one shard writer: frozen memtables become SSTables oldest first, one
 * flush in flight, and only once all their rows are durable (an SSTable must never hold rows the
 * WAL does not). A written SSTable goes to the {@link SsTablePublisher}; its memtable is released.
 * Each write first reserves the Arrow memory it may allocate ({@link #begin}).
 */
@Internal
public final class SsTableFlusher {
    private static final Logger LOG =
            LoggerFactory.getLogger("io.walsink.shard.ShardWriter"); // the writer's log category

    private final UUID shardId;
    private final SsTableWriter sstables;
    private final MemtableSet memtables;
    private final SsTablePublisher publisher;
    private final ShardHealth health;
    private final ShardStats stats;
    private SsTableFlush inFlight;
    private boolean waitsForMemory;

    public SsTableFlusher(
            UUID shardId,
            SsTableWriter sstables,
            MemtableSet memtables,
            SsTablePublisher publisher,
            ShardHealth health,
            ShardStats stats) {
        this.shardId = shardId;
        this.sstables = sstables;
        this.memtables = memtables;
        this.publisher = publisher;
        this.health = health;
        this.stats = stats;
    }

    public boolean inFlight() {
        return inFlight != null;
    }

    /** Whether the oldest frozen memtable is fully durable and can become an SSTable now. */
    public boolean hasFlushableMemtable() {
        return memtables.oldestFrozen().map(m -> !m.hasPendingRows()).orElse(false);
    }

    /** Whether the last {@link #begin} found a flushable memtable but no room for its write's reservation. */
    public boolean waitsForMemory() {
        return waitsForMemory;
    }

    /**
     * Starts writing the oldest frozen memtable once its write's reservation
     * ({@link SsTableWriter#reservation}) is taken from the writer's allocator, so that the write,
     * on an I/O thread, allocates only memory set aside for it and never what the cap still has to
     * give the memtables or other writes.
     *
     * @return empty if a flush is in flight, no frozen memtable is fully durable, or the cap has
     *     no room for the reservation now ({@link #waitsForMemory()})
     */
    public Optional<SsTableFlush> begin() {
        waitsForMemory = false;
        if (inFlight != null || !hasFlushableMemtable()) {
            return Optional.empty();
        }
        Memtable oldest = memtables.oldestFrozen().orElseThrow();
        Optional<BufferAllocator> memory = sstables.reserve(oldest);
        waitsForMemory = memory.isEmpty();
        if (waitsForMemory) {
            return Optional.empty();
        }
        inFlight = new SsTableFlush(sstables, oldest, memory.get());
        return Optional.of(inFlight);
    }

    /**
     * As {@link #begin}, with what the cap has left when that is less than the reservation: for an
     * owner with nothing else in flight that could give memory back. The write may then reach the
     * cap.
     */
    public Optional<SsTableFlush> beginWithWhatIsLeft() {
        if (inFlight != null || !hasFlushableMemtable()) {
            return Optional.empty();
        }
        Memtable oldest = memtables.oldestFrozen().orElseThrow();
        BufferAllocator memory = sstables.reserveWhatIsLeft(oldest);
        LOG.warn(
                "Shard {} writes SSTable generation {} with {} of the {} bytes it may need reserved:"
                        + " the memtables hold the rest of the writer's off-heap cap",
                shardId,
                oldest.generation(),
                memory.getInitReservation(),
                memory.getLimit());
        waitsForMemory = false;
        inFlight = new SsTableFlush(sstables, oldest, memory);
        return Optional.of(inFlight);
    }

    /** Gives back the reservation of a flush that never completes (the writer is closing). */
    public void close() {
        if (inFlight != null) {
            inFlight.release();
            inFlight = null;
        }
    }

    /** See {@link io.walsink.shard.ShardWriter#completeFlush}. */
    public void complete(SsTableFlush flush) {
        flush.checkHandedBack(inFlight);
        inFlight = null;
        flush.release();
        health.check();
        if (flush.failure() != null) {
            throw health.poison(
                    Reason.FLUSH_FAILED,
                    "writing SSTable generation " + flush.generation() + " failed",
                    flush.failure());
        }
        publisher.written(flush.written());
        memtables.retireOldestFrozen(flush.memtable);
        stats.sstablesWritten++;
        LOG.info(
                "Shard {} wrote SSTable {} (generation {}, {} rows, WAL through {})",
                shardId,
                flush.written().path(),
                flush.written().generation(),
                flush.written().physicalRows(),
                flush.written().lastWalPosition());
    }
}
