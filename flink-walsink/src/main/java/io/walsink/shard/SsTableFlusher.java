package io.walsink.shard;

import io.walsink.shard.ShardPoisonedException.Reason;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSTable side of one shard writer: frozen memtables become SSTables oldest first, one
 * flush in flight, and only once all their rows are durable (an SSTable must never hold rows the
 * WAL does not). A written SSTable goes to the {@link SsTablePublisher}; its memtable is released.
 */
final class SsTableFlusher {
    private static final Logger LOG = LoggerFactory.getLogger(ShardWriter.class); // the writer's log category

    private final UUID shardId;
    private final SsTableWriter sstables;
    private final MemtableSet memtables;
    private final SsTablePublisher publisher;
    private final ShardHealth health;
    private final ShardStats stats;
    private SsTableFlush inFlight;

    SsTableFlusher(
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

    boolean inFlight() {
        return inFlight != null;
    }

    /** Whether the oldest frozen memtable is fully durable and can become an SSTable now. */
    boolean hasFlushableMemtable() {
        return memtables.oldestFrozen().map(m -> !m.hasPendingRows()).orElse(false);
    }

    /** @return empty if a flush is in flight or no frozen memtable is fully durable */
    Optional<SsTableFlush> begin() {
        if (inFlight != null || !hasFlushableMemtable()) {
            return Optional.empty();
        }
        inFlight = new SsTableFlush(sstables, memtables.oldestFrozen().orElseThrow());
        return Optional.of(inFlight);
    }

    /** See {@link ShardWriter#completeFlush}. */
    void complete(SsTableFlush flush) {
        flush.checkHandedBack(inFlight);
        inFlight = null;
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
