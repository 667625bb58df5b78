package io.walsink.shard.driver;

import io.walsink.annotation.Internal;
import io.walsink.shard.ShardEvents;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.io.SsTableFlusher;
import io.walsink.shard.memtable.RowWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The shards one owner (a Flink writer subtask, a tool, a benchmark) writes, each through its
 * {@link ShardDriver}, and what concerns all of them: the owner's memory budget and the waits at
 * checkpoints, end of input and stop.
 *
 * <p>Memory: each shard's budget ({@code sink.max-unflushed-bytes}) and the owner's
 * ({@code sink.max-unflushed-bytes-per-subtask}). A write that finds either exceeded waits
 * (backpressure), running I/O completions, until SSTable writes bring it back under; for the
 * owner's budget the largest shard is relieved first. The total is kept from each shard's last
 * measurement, taken every {@value ShardDriver#ROWS_PER_SIZE_CHECK} rows of a shard since measuring
 * walks its buffers. The allocator's own count, which also sees buffer capacity not yet filled and
 * SSTable writes in flight, counts as over when it passes {@code pressureBytes}; being one atomic
 * read, it is checked before every row: with hundreds of shards each opening a batch between its
 * own size checks, checking it only with them let the allocator reach its cap. Each SSTable write
 * reserves its memory before it starts ({@link SsTableFlusher#begin}); a write the cap has no room
 * for waits here, and rows wait while it does, until another write's completion gives memory back.
 *
 * <p>WAL appends: each shard's ticks come a flush interval apart, and further apart when the
 * owner holds more shards than {@code tickAppendsPerSecond} allows at that interval, so that the
 * owner's PUTs a second stay bounded whatever its bucket count (appends for a full WAL buffer, a
 * frozen memtable or a checkpoint are not held back).
 *
 * <p>The Flink operator, the tests' {@code SyncShardDriver} and the benchmarks all write through
 * this class: the scheduling exists once.
 */
@Internal
public final class ShardDrivers {
    private final ShardIo io;
    /** WAL appends a second an owner's ticks start by default: two shards still append every 100 ms. */
    public static final int DEFAULT_TICK_APPENDS_PER_SECOND = 20;

    private final ShardTimer timer;
    private final ShardEvents events;
    private final LongSupplier clock;
    private final boolean publishWhenWritten;
    private final long unflushedLimit;
    private final LongSupplier allocatedBytes;
    private final long pressureBytes;
    private final int tickAppendsPerSecond;
    private final Map<Integer, ShardDriver> open = new HashMap<>();
    private final Collection<ShardDriver> all = Collections.unmodifiableCollection(open.values());
    /** {@link #open} by bucket, for the per-row lookup: the map's boxed lookup was 4% of the task thread at 128 buckets. */
    private ShardDriver[] byBucket = new ShardDriver[0];

    private long measuredTotal;

    /** Shards whose next SSTable write waits for room for its reservation, oldest wait first. */
    private final Set<ShardDriver> waitingForMemory = new LinkedHashSet<>();

    private final ShardDriver.FlushMemory flushMemory = new ShardDriver.FlushMemory() {
        @Override
        public void waiting(ShardDriver driver) {
            waitingForMemory.add(driver);
        }

        @Override
        public void released() {
            retryWaiting();
        }
    };

    /**
     * @param clock milliseconds, the owner's processing time
     * @param publishWhenWritten publish each SSTable as soon as it is written (no checkpoints to wait for)
     * @param unflushedLimit the owner's budget of bytes not yet in SSTables, over all its shards
     * @param allocatedBytes what the owner's Arrow allocator holds, SSTable writes in flight included
     * @param tickAppendsPerSecond the most WAL appends a second the owner's ticks start over all its
     *     shards ({@code sink.wal.max-appends-per-second}): with more shards than the flush interval
     *     allows, each shard's ticks are spaced further apart
     */
    public ShardDrivers(
            ShardIo io,
            ShardTimer timer,
            ShardEvents events,
            LongSupplier clock,
            boolean publishWhenWritten,
            long unflushedLimit,
            LongSupplier allocatedBytes,
            long pressureBytes,
            int tickAppendsPerSecond) {
        if (tickAppendsPerSecond < 1) {
            throw new IllegalArgumentException("WAL appends per second must be positive, was " + tickAppendsPerSecond);
        }
        this.io = io;
        this.timer = timer;
        this.events = events;
        this.clock = clock;
        this.publishWhenWritten = publishWhenWritten;
        this.unflushedLimit = unflushedLimit;
        this.allocatedBytes = allocatedBytes;
        this.pressureBytes = pressureBytes;
        this.tickAppendsPerSecond = tickAppendsPerSecond;
    }

    /**
     * Drivers for an owner without memory budgets of its own or metrics (tools, benchmarks,
     * tests): each shard keeps its own budget ({@code sink.max-unflushed-bytes}).
     */
    public static ShardDrivers unbudgeted(ShardIo io, ShardTimer timer, LongSupplier clock) {
        return new ShardDrivers(
                io, timer, ShardEvents.NONE, clock, false, Long.MAX_VALUE, () -> 0L, Long.MAX_VALUE, Integer.MAX_VALUE);
    }

    /** Starts driving a freshly opened or restored writer (its frozen memtables, its pending rows). */
    public ShardDriver add(int bucket, ShardWriter writer) {
        if (bucket < 0) {
            throw new IllegalArgumentException("bucket must not be negative, was " + bucket);
        }
        ShardDriver d = new ShardDriver(
                bucket, writer, io, timer, events, clock, publishWhenWritten, this::tickSpacingMillis, flushMemory);
        if (open.putIfAbsent(bucket, d) != null) {
            throw new IllegalStateException("bucket " + bucket + " is already open");
        }
        if (bucket >= byBucket.length) {
            byBucket = Arrays.copyOf(byBucket, Math.max(bucket + 1, 2 * byBucket.length));
        }
        byBucket[bucket] = d;
        d.opened();
        return d;
    }

    /** The bucket's driver, or null when its shard is not open. */
    public ShardDriver get(int bucket) {
        return bucket >= 0 && bucket < byBucket.length ? byBucket[bucket] : null;
    }

    /** Every open driver (a live view). */
    public Collection<ShardDriver> all() {
        return all;
    }

    public int size() {
        return open.size();
    }

    /**
     * The least time between two ticks of one shard that keeps the owner's tick-started appends
     * within their rate: its open shards over the rate (0 while the flush interval alone does).
     * Rounded up, so the rate is never exceeded.
     */
    long tickSpacingMillis() {
        return (open.size() * 1000L + tickAppendsPerSecond - 1) / tickAppendsPerSecond;
    }

    // ---------------------------------------------------------------- rows and ticks

    /** Upserts or deletes one row; waits first if a memory budget is exceeded. */
    public void write(ShardDriver d, RowWriter row, boolean delete) throws InterruptedException {
        boolean checkSizes = d.sizeCheckDue();
        if (checkSizes || allocatedBytes.getAsLong() > pressureBytes || !waitingForMemory.isEmpty()) {
            awaitRoom(d);
        }
        d.write(row, delete, checkSizes);
    }

    /** Upserts a batch; waits first if a memory budget is exceeded. */
    public void put(ShardDriver d, VectorSchemaRoot rows) throws InterruptedException {
        awaitRoom(d);
        d.put(rows);
    }

    /** The bucket's timer, asked for at {@code dueMillis}, fired; ignored for a shard not open. */
    public void tick(int bucket, long dueMillis) {
        ShardDriver d = get(bucket);
        if (d != null) {
            d.tick(dueMillis);
        }
    }

    /** A checkpoint covering generations up to {@code upToGeneration} of the bucket completed. */
    public void requestPublication(int bucket, long upToGeneration) {
        ShardDriver d = get(bucket);
        if (d != null) {
            d.requestPublication(upToGeneration);
        }
    }

    /** Publishes every written SSTable of every shard (without checkpoints, at the end). */
    public void requestPublicationOfAll() {
        all.forEach(d -> d.requestPublication(Long.MAX_VALUE));
    }

    // ---------------------------------------------------------------- waits

    /** Appends every pending row of every shard and waits until all of it is durable. */
    public void drainAppends() throws InterruptedException {
        while (true) {
            boolean busy = false;
            for (ShardDriver d : all) {
                if (!d.writer().appendInFlight() && d.writer().hasPendingRows()) {
                    d.startAppend();
                }
                busy |= d.appending();
            }
            if (!busy) {
                return;
            }
            io.yieldOnce();
        }
    }

    /**
     * Bounded visibility: freezes the memtables holding rows older than {@code maxAgeMillis}, at
     * most {@code budget} of them, oldest rows first ({@link AgedFirst}), and waits until they are
     * SSTables, so the checkpoint about to be taken covers (and publishes) them.
     */
    public void flushAged(long maxAgeMillis, int budget) throws InterruptedException {
        long now = clock.getAsLong();
        List<ShardDriver> aged = AgedFirst.choose(all, now, maxAgeMillis, budget);
        aged.forEach(d -> d.freeze(now));
        if (!aged.isEmpty()) {
            drainFlushes(aged);
        }
    }

    /** Checkpoints past the age limit within which {@link #flushAged} writes each of {@code shards}. */
    public static int checkpointsToVisibility(int shards, int budget) {
        return AgedFirst.checkpointsToVisibility(shards, budget);
    }

    /**
     * Makes every row durable and every memtable, the active ones too, an SSTable, and waits for
     * all of it: at the end of input, and at a stop-with-savepoint, after which no checkpoint
     * comes that could publish a memtable left for later.
     */
    public void writeEverything() throws InterruptedException {
        drainAppends();
        long now = clock.getAsLong();
        for (ShardDriver d : all) {
            d.freeze(now);
        }
        drainAppends();
        drainFlushes(all);
    }

    /** Waits until every requested publication is in a manifest. */
    public void awaitPublications() throws InterruptedException {
        yieldUntil(() -> all.stream().noneMatch(ShardDriver::publishing));
    }

    private void drainFlushes(Collection<ShardDriver> drivers) throws InterruptedException {
        drivers.forEach(ShardDriver::startFlush);
        yieldUntil(() -> drivers.stream().noneMatch(ShardDriver::flushing));
    }

    /** Runs completions until {@code done}; fails rather than wait forever when no I/O could make it true. */
    private void yieldUntil(BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            if (io.idle()) {
                startWaitingWithWhatIsLeft();
            }
            if (io.idle()) {
                throw new IllegalStateException("waiting for walsink I/O with none in flight");
            }
            io.yieldOnce();
        }
    }

    /** Tries the writes that wait for memory again, oldest wait first; those that still do not fit wait on. */
    private void retryWaiting() {
        if (waitingForMemory.isEmpty()) {
            return;
        }
        List<ShardDriver> waiting = new ArrayList<>(waitingForMemory);
        waitingForMemory.clear();
        waiting.forEach(ShardDriver::startFlush);
    }

    /**
     * With no I/O in flight nothing can give memory back: the oldest waiting write starts with what
     * the cap has left rather than wait forever (the owner's pressure mark keeps a full memtable's
     * reservation free, so only budgets set too close to the cap for that get here).
     */
    private void startWaitingWithWhatIsLeft() {
        retryWaiting();
        if (!io.idle() || waitingForMemory.isEmpty()) {
            return;
        }
        ShardDriver oldest = waitingForMemory.iterator().next();
        waitingForMemory.remove(oldest);
        oldest.startFlushWithWhatIsLeft();
    }

    // ---------------------------------------------------------------- memory

    /**
     * Waits until SSTable writes bring {@code d} under its budget and the owner under its own,
     * freezing the relieved shard's active memtable if it has no frozen one. Gives up (goes over
     * budget) rather than hang when no I/O could help.
     */
    private void awaitRoom(ShardDriver d) throws InterruptedException {
        measure(d);
        long started = Long.MIN_VALUE;
        while (true) {
            if (!waitingForMemory.isEmpty()) {
                // a write waits for room for its reservation: no row may take that room meanwhile
                if (io.idle()) {
                    startWaitingWithWhatIsLeft();
                }
                if (io.idle()) {
                    waitingForMemory.clear(); // nothing could start: no write of these shards is possible now
                    continue;
                }
                if (started == Long.MIN_VALUE) {
                    started = clock.getAsLong();
                }
                io.yieldOnce();
                continue;
            }
            ShardDriver target = d.writer().overBudget() ? d : over() ? largest() : null;
            if (target == null) {
                break;
            }
            ShardWriter w = target.writer();
            if (!w.overBudget() && w.frozenMemtables() == 0) {
                target.freeze(clock.getAsLong());
            }
            target.startAppend();
            target.startFlush();
            if (!w.appendInFlight() && !w.flushInFlight() && io.idle()) {
                break; // nothing in flight could bring it under
            }
            if (started == Long.MIN_VALUE) {
                started = clock.getAsLong();
            }
            io.yieldOnce();
            measure(target);
            measure(d);
        }
        if (started != Long.MIN_VALUE) {
            events.backpressured(clock.getAsLong() - started);
        }
    }

    private void measure(ShardDriver d) {
        long now = d.writer().heldBytes();
        measuredTotal += now - d.measuredBytes;
        d.measuredBytes = now;
    }

    private boolean over() {
        return measuredTotal > unflushedLimit || allocatedBytes.getAsLong() > pressureBytes;
    }

    /** Measures every shard and returns the one holding the most. */
    private ShardDriver largest() {
        ShardDriver largest = null;
        for (ShardDriver d : all) {
            measure(d);
            if (largest == null || d.measuredBytes > largest.measuredBytes) {
                largest = d;
            }
        }
        return largest;
    }

    // ---------------------------------------------------------------- shutdown

    /** Frees every shard's memory; call only when no I/O can still read it. */
    public void closeAll() {
        all.forEach(d -> d.writer().close());
        waitingForMemory.clear();
        open.clear();
        byBucket = new ShardDriver[0];
        measuredTotal = 0;
    }

    /** One line per shard, in bucket order: what each wrote. */
    public String summary() {
        List<String> parts = new ArrayList<>();
        for (ShardDriver d : new TreeMap<>(open).values()) {
            parts.add("bucket " + d.bucket() + ": " + d.writer().stats());
        }
        return String.join("; ", parts);
    }
}
