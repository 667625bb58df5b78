package io.walsink.shard;

import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.shard.io.ManifestUpdate;
import io.walsink.shard.io.SsTableFlush;
import io.walsink.shard.io.WalAppend;
import java.util.Optional;

/**
 * Runs a {@link ShardWriter}'s I/O inline on the caller's thread, for tests that want the
 * engine's outcome without threads. {@link #tick} and {@link #flushAndPublishAll} go through the
 * production {@link ShardDrivers} with a direct executor; the single steps ({@link #appendOnce},
 * {@link #appendAllPending}, {@link #flushFrozen}, {@link #publishAll}) run the writer's
 * {@code begin...}, {@code run()}, {@code complete...} protocol one piece at a time, for tests
 * that fix an interleaving the driver would not choose. Each fails exactly as the writer's own
 * calls do (a poisoned writer throws its poison).
 */
public final class SyncShardDriver {
    private SyncShardDriver() {}

    /** Runs one append (if anything is pending), as the ticker would; whether one ran. */
    public static boolean appendOnce(ShardWriter writer) {
        Optional<WalAppend> append = writer.beginAppend();
        append.ifPresent(a -> {
            a.run();
            writer.completeAppend(a);
        });
        return append.isPresent();
    }

    /**
     * The owner's timer fired at {@code nowMillis}: the driver records the tick and appends the
     * oldest pending memtable, and whatever that append's completion starts runs too.
     */
    public static void tick(ShardWriter writer, long nowMillis) {
        QueuedShardIo io = inline();
        ShardDrivers drivers = drivers(io, () -> nowMillis);
        drivers.add(0, writer);
        io.runCompleted(); // what opening started
        drivers.tick(0, nowMillis);
        while (io.runCompleted() > 0) {}
    }

    /** Appends until nothing is pending (barrier, freeze, close). */
    public static void appendAllPending(ShardWriter writer) {
        writer.appendAllPending();
    }

    /** Writes every frozen, fully durable memtable as an SSTable. */
    public static void flushFrozen(ShardWriter writer) {
        for (Optional<SsTableFlush> flush = writer.beginFlush(); flush.isPresent(); flush = writer.beginFlush()) {
            flush.get().run();
            writer.completeFlush(flush.get());
        }
    }

    /** Publishes every written SSTable in one manifest version (none if there is nothing to publish). */
    public static void publishAll(ShardWriter writer) {
        Optional<ManifestUpdate> update = writer.beginPublish(Long.MAX_VALUE);
        if (update.isPresent()) {
            update.get().run();
            writer.completeManifestUpdate(update.get());
        }
    }

    /**
     * Leaves a complete table: appends everything, writes every memtable (the active one too) as
     * an SSTable and publishes them, as the operator does at end of input without checkpoints.
     */
    public static void flushAndPublishAll(ShardWriter writer) {
        QueuedShardIo io = inline();
        ShardDrivers drivers = drivers(io, () -> 0L);
        drivers.add(0, writer);
        try {
            drivers.writeEverything();
            drivers.requestPublicationOfAll();
            drivers.awaitPublications();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static QueuedShardIo inline() {
        return new QueuedShardIo(Runnable::run);
    }

    private static ShardDrivers drivers(QueuedShardIo io, java.util.function.LongSupplier clock) {
        return ShardDrivers.unbudgeted(io, (bucket, due) -> {}, clock);
    }
}
