package io.walsink.shard.driver;

import io.walsink.annotation.Internal;
import io.walsink.shard.MemtableAges;
import io.walsink.shard.ShardEvents;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.io.SsTableFlush;
import io.walsink.shard.memtable.RowWriter;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Decides when one shard's I/O happens, so that its owner only hands it rows, ticks and
 * checkpoint events: WAL appends (on its ticker, or early when a memtable froze or its pending
 * bytes passed the WAL buffer size), SSTable writes (once a frozen memtable is durable) and
 * publications (once asked for). At most one of each is in flight; each completion starts what
 * follows from it, so nothing is polled per row.
 *
 * <p>Everything runs on the owner's thread; I/O runs through the {@link ShardIo} and comes back
 * there. Obtain drivers from {@link ShardDrivers}, which also keeps the owner's memory budget.
 */
@Internal
public final class ShardDriver {
    /** Rows of one shard between two looks at its sizes; a look walks the memtables' buffers. */
    static final int ROWS_PER_SIZE_CHECK = 64;

    private static final long NONE = Long.MIN_VALUE;

    private final int bucket;
    private final ShardWriter writer;
    private final ShardIo io;
    private final ShardTimer timer;
    private final ShardEvents events;
    private final LongSupplier clock;
    private final boolean publishWhenWritten;
    private final LongSupplier tickSpacing;
    private final MemtableAges ages = new MemtableAges();
    private final FlushMemory memory;

    /** Where SSTable writes that wait for memory are kept, and told when a write gave memory back. */
    interface FlushMemory {
        /** {@code driver}'s next write found no room for its reservation. */
        void waiting(ShardDriver driver);

        /** A write completed and gave its reservation and its memtable back. */
        void released();
    }

    /** Due time of the timer this driver asked for, or NONE. */
    private long armedAt = NONE;
    /** Highest generation the owner asked to publish, or NONE. */
    private long publishUpTo = NONE;
    /** When the oldest row not yet in an append arrived (durable-lag metric), or NONE. */
    private long oldestPendingSince = NONE;
    /** {@link ShardWriter#heldBytes()} when {@link ShardDrivers} last measured it. */
    long measuredBytes;

    private int rowsSinceSizeCheck;

    ShardDriver(
            int bucket,
            ShardWriter writer,
            ShardIo io,
            ShardTimer timer,
            ShardEvents events,
            LongSupplier clock,
            boolean publishWhenWritten,
            LongSupplier tickSpacing,
            FlushMemory memory) {
        this.bucket = bucket;
        this.memory = memory;
        this.writer = writer;
        this.io = io;
        this.timer = timer;
        this.events = events;
        this.clock = clock;
        this.publishWhenWritten = publishWhenWritten;
        this.tickSpacing = tickSpacing;
    }

    public int bucket() {
        return bucket;
    }

    public ShardWriter writer() {
        return writer;
    }

    /** A freshly opened or restored writer may hold frozen memtables and re-appended rows. */
    void opened() {
        long now = clock.getAsLong();
        startFlush();
        arm(now);
        ages.restored(writer, now);
    }

    // ---------------------------------------------------------------- rows

    /** Counts a row; true every {@link #ROWS_PER_SIZE_CHECK}th row of this shard. */
    boolean sizeCheckDue() {
        if (++rowsSinceSizeCheck < ROWS_PER_SIZE_CHECK) {
            return false;
        }
        rowsSinceSizeCheck = 0;
        return true;
    }

    /** The production path: one row written straight into the active memtable. */
    void write(RowWriter row, boolean delete, boolean checkSizes) {
        rowsTaken(writer.write(row, delete), checkSizes);
    }

    /** A batch of upserts (tools and benchmarks). */
    void put(VectorSchemaRoot rows) {
        int frozenBefore = writer.frozenMemtables();
        writer.put(rows);
        rowsTaken(writer.frozenMemtables() > frozenBefore, true);
    }

    private void rowsTaken(boolean froze, boolean checkSizes) {
        boolean wantsTimer = armedAt == NONE;
        // The clock only for a first row or an unarmed ticker: a read per row was 5% of the thread.
        long now = oldestPendingSince == NONE || !ages.activeStarted() || wantsTimer ? clock.getAsLong() : NONE;
        if (oldestPendingSince == NONE) {
            oldestPendingSince = now;
        }
        ages.rowWritten(now, froze);
        // A frozen memtable owes its tail to the WAL now; a full WAL buffer is found by the size check.
        if (froze || checkSizes && writer.wantsEarlyAppend()) {
            startAppend();
        }
        if (wantsTimer) {
            arm(now);
        }
    }

    // ---------------------------------------------------------------- the ticker

    /** The owner's timer fired (at {@code dueMillis}, the time it was asked for): append once. */
    void tick(long dueMillis) {
        if (armedAt == dueMillis) {
            armedAt = NONE;
        } // else a timer restored from a checkpoint, or one this driver no longer waits for
        long now = clock.getAsLong();
        writer.recordTick(now);
        startAppend();
        arm(now);
    }

    /**
     * Asks for a tick while rows are not yet durable, those of an append in flight included (its
     * failure to land, e.g. a taken position, leaves them pending for the next tick).
     */
    private void arm(long now) {
        if (armedAt != NONE || !writer.hasPendingRows()) {
            return;
        }
        armedAt = writer.nextTickAt(now == NONE ? clock.getAsLong() : now, tickSpacing.getAsLong());
        timer.wakeAt(bucket, armedAt);
    }

    // ---------------------------------------------------------------- I/O

    void startAppend() {
        writer.beginAppend().ifPresent(append -> {
            long since = oldestPendingSince;
            oldestPendingSince = NONE;
            io.submit(
                    append,
                    () -> {
                        writer.completeAppend(append);
                        long now = clock.getAsLong();
                        events.appended(append.bytes(), since == NONE ? 0 : now - since);
                        if (writer.hasPendingRows() && oldestPendingSince == NONE) {
                            oldestPendingSince = now;
                        }
                        if (writer.wantsEarlyAppend()) {
                            startAppend();
                        }
                        startFlush();
                    },
                    "walsink WAL append");
        });
    }

    /**
     * Starts writing the oldest frozen memtable once it is durable; one whose reservation the cap
     * has no room for now waits with {@link ShardDrivers} until another write gives memory back.
     */
    void startFlush() {
        if (!writer.hasFlushableMemtable()) {
            return;
        }
        Optional<SsTableFlush> flush = writer.beginFlush();
        if (flush.isPresent()) {
            submit(flush.get());
        } else if (writer.flushWaitsForMemory()) {
            memory.waiting(this);
        }
    }

    /** Starts the waiting write with what the cap has left: nothing in flight can give memory back. */
    void startFlushWithWhatIsLeft() {
        writer.beginFlushWithWhatIsLeft().ifPresent(this::submit);
    }

    private void submit(SsTableFlush flush) {
        io.submit(
                flush,
                () -> {
                    writer.completeFlush(flush);
                    events.sstableWritten();
                    if (publishWhenWritten) {
                        requestPublication(Long.MAX_VALUE);
                    }
                    startFlush();
                    memory.released();
                },
                "walsink SSTable write");
    }

    /** Publishes the written SSTables of generations up to {@code upToGeneration}, now or after the update in flight. */
    void requestPublication(long upToGeneration) {
        publishUpTo = publishUpTo == NONE ? upToGeneration : Math.max(publishUpTo, upToGeneration);
        startPublication();
    }

    private void startPublication() {
        long upTo = publishUpTo;
        if (upTo == NONE || writer.manifestUpdateInFlight()) {
            return; // an update in flight starts the next one when it completes
        }
        if (writer.unpublished().stream().noneMatch(t -> t.generation() <= upTo)) {
            publishUpTo = NONE;
            return;
        }
        writer.beginPublish(upTo)
                .ifPresent(update -> io.submit(
                        update,
                        () -> {
                            writer.completeManifestUpdate(update);
                            int count = update.publishing().size();
                            events.sstablesPublished(count);
                            ages.published(count, clock.getAsLong(), events::published);
                            startPublication();
                        },
                        "walsink manifest update"));
    }

    /** Freezes the active memtable (a no-op without rows); its SSTable follows once it is durable. */
    void freeze(long now) {
        ages.freeze(writer, now);
    }

    boolean activeOlderThan(long now, long maxAgeMillis) {
        return ages.activeOlderThan(now, maxAgeMillis);
    }

    long activeSince() {
        return ages.activeSince();
    }

    // ---------------------------------------------------------------- what the owner waits for

    boolean appending() {
        return writer.appendInFlight() || writer.hasPendingRows();
    }

    boolean flushing() {
        return writer.frozenMemtables() > 0 || writer.flushInFlight();
    }

    boolean publishing() {
        return publishUpTo != NONE || writer.manifestUpdateInFlight();
    }
}
