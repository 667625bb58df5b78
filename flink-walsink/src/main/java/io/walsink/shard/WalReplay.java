package io.walsink.shard;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.wal.WalEntry;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalReadAhead;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.io.ShardStats;
import io.walsink.shard.io.SsTableFlush;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.MemtableSet;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Rebuilds the memtables of a writer {@link ShardOpener} just opened from a range of its WAL
 * entries. Runs on the opener's thread before the writer is handed out.
 */
final class WalReplay {
    /**
     * WAL entries fetched ahead of the one being replayed: on S3 a replay of many small entries is
     * a round trip per entry otherwise (docs/benchmarks.md, "Restoring many shards").
     */
    static final int READ_AHEAD = 4;

    private final TableContext ctx;
    private final WalLog wal;
    private final ManifestStore manifests;
    private final ShardWriter writer;

    WalReplay(TableContext ctx, WalLog wal, ManifestStore manifests, ShardWriter writer) {
        this.ctx = ctx;
        this.wal = wal;
        this.manifests = manifests;
        this.writer = writer;
    }

    /**
     * Rebuilds memtables from WAL entries {@code [from, to]}. With {@code markDurable} the
     * replayed batches count as appended (they are never written again); without it they are
     * pending and will be appended anew (a rollback re-writes them after the sentinel).
     */
    void replay(long from, long to, boolean markDurable) {
        replay(from, to, markDurable, false);
    }

    /**
     * As {@link #replay(long, long, boolean)}; with {@code writeOverBudget} (durable replay of a
     * plain open only) frozen memtables are written as SSTables as soon as the shard holds more
     * than {@code sink.max-unflushed-bytes}, so a long WAL replays within the same memory budget
     * as live writing instead of holding every memtable it rebuilds. The SSTables are published
     * like any others, by the next completed checkpoint.
     */
    void replay(long from, long to, boolean markDurable, boolean writeOverBudget) {
        ShardStats stats = writer.stats();
        try (WalReadAhead entries = wal.readAhead(from, to, READ_AHEAD)) {
            while (entries.hasNext()) {
                long position = entries.position();
                Optional<WalEntry> read = entries.next();
                if (read.isEmpty()) {
                    GcFloor floor = manifests.readFloor();
                    if (floor.collectedPosition(position)) {
                        throw new GarbageCollectedException(
                                manifests.location(wal.key(position)),
                                "WAL entry " + position + ", inside the range " + from + ".." + to
                                        + " that must be replayed, was " + floor.describe());
                    }
                    throw new FormatException(
                            manifests.location(wal.key(position)),
                            "WAL entry missing inside the range " + from + ".." + to + " that must be replayed",
                            null);
                }
                try (WalEntry entry = read.get()) {
                    if (entry.writerEpoch() > writer.epoch()) {
                        throw writer.poison(
                                Reason.FENCED,
                                "WAL entry " + position + " has epoch " + entry.writerEpoch() + " (ours is "
                                        + writer.epoch() + ")",
                                null);
                    }
                    if (entry.sentinel() || entry.batches().isEmpty()) {
                        continue;
                    }
                    Memtable target = memtableFor(entry);
                    int before = target.sealedBatchCount();
                    for (VectorSchemaRoot batch : entry.batches()) {
                        stats.replayedRows += batch.getRowCount();
                        writer.rowKeys().replayed(batch); // keys generated before stay theirs
                        target.adoptSealed(batch); // decoded batches are in the storage schema already
                    }
                    if (markDurable) {
                        target.markDurable(target.sealedBatchCount() - before, position);
                        writer.checkpoint().durableAtLeast(position);
                        if (writeOverBudget) {
                            writeSsTablesOverBudget();
                        }
                    }
                    stats.replayedEntries++;
                }
            }
        }
    }

    private void writeSsTablesOverBudget() {
        while (writer.unflushedBytes() > ctx.config().maxUnflushedBytes()) {
            Optional<SsTableFlush> flush = writer.beginFlush();
            if (flush.isEmpty()) {
                return; // nothing frozen yet: the active memtable freezes at its own limit
            }
            flush.get().run();
            writer.completeFlush(flush.get());
            writer.stats().replayFlushes++;
        }
    }

    /**
     * The memtable an entry's rows go to: its recorded generation when it has one, and a new
     * memtable at an entry boundary when the active one is full (never overflowing mid-entry).
     */
    private Memtable memtableFor(WalEntry entry) {
        MemtableSet memtables = writer.memtables();
        Memtable active = memtables.active();
        long generation = entry.generation().orElse(active.generation());
        if (generation > active.generation()) {
            if (active.rows() == 0) {
                memtables.replaceEmptyActive(ctx.newMemtable(generation, writer.rowKeys()));
            } else {
                memtables.freezeActive(ctx.newMemtable(generation, writer.rowKeys()));
            }
        } else if (active.rows() > 0 && ctx.memtableFull(active)) {
            memtables.freezeActive(ctx.newMemtable(active.generation() + 1, writer.rowKeys()));
        }
        return memtables.active();
    }
}
