package io.walsink.shard;

import java.util.Optional;

/**
 * Runs a {@link ShardWriter}'s tasks inline on the caller's thread: what the operator does with
 * its executor and mailbox, for tests that want the engine's outcome without either. Each call
 * is a {@code begin...}, {@code run()}, {@code complete...} sequence, so it fails exactly as the
 * writer's own calls do (a poisoned writer throws its poison).
 */
public final class SyncShardDriver {
    private SyncShardDriver() {}

    /** Runs one append (if anything is pending), as the ticker would; whether one ran. */
    public static boolean appendOnce(ShardWriter writer) {
        Optional<WalAppend> append = writer.beginAppend();
        append.ifPresent(a -> run(writer, a));
        return append.isPresent();
    }

    /** The owner's timer fired at {@code nowMillis}: record the tick and append the oldest pending memtable once. */
    public static void tick(ShardWriter writer, long nowMillis) {
        // beginAppend first: a poisoned or closed writer throws before the tick is recorded.
        Optional<WalAppend> append = writer.beginAppend();
        writer.recordTick(nowMillis);
        append.ifPresent(a -> run(writer, a));
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
     * Leaves a complete table: appends everything, freezes the active memtable, writes its
     * SSTable and publishes all written SSTables, as the operator does at end of input.
     */
    public static void flushAndPublishAll(ShardWriter writer) {
        appendAllPending(writer);
        writer.freezeActive();
        appendAllPending(writer);
        flushFrozen(writer);
        publishAll(writer);
    }

    private static void run(ShardWriter writer, WalAppend append) {
        append.run();
        writer.completeAppend(append);
    }
}
