package io.walsink.flink.internal;

import io.walsink.flink.SinkOptions;
import io.walsink.flink.WalSinkOptions;
import io.walsink.flink.internal.memory.SinkAllocators;
import io.walsink.flink.internal.memory.SinkSettings;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.maintenance.gc.GcSummary;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.storage.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.compaction.CompactionOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table maintenance from inside the sink: compaction into the Lance base table
 * ({@code sink.compaction.enabled}), then garbage collection ({@code sink.gc.enabled}). One writer
 * subtask per table runs it on a thread of its own after completed checkpoints, at most once per
 * {@code sink.maintenance.interval} and one run at a time, so the writers never wait for it. A
 * failed run is logged and counted; the next one retries (both actions are idempotent).
 *
 * <p>A compaction run starts no generation after {@link #runTime} (the interval, at least
 * {@link #MIN_RUN_TIME}) and the rest waits for the next run; {@link #close} lets a running one end
 * on its own only after the end of input, and then for at most half its wait.
 */
final class SinkMaintenance implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkMaintenance.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
    /** The shortest time budget of a compaction run, whatever the maintenance interval. */
    static final Duration MIN_RUN_TIME = Duration.ofSeconds(10);

    private final String path;
    private final BufferAllocator allocator;
    private final TableLocation location;
    private final boolean compaction;
    private final Duration gcRetention;
    private final Duration consumerExpiration;
    private final GarbageCollector collector;
    private final long minIntervalMillis;
    private final ShardWriterMetrics metrics;
    /** This job (with its lineage) as the holder of the table's maintenance lease. */
    private final LeaseClaimant claimant;

    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "walsink-maintenance");
        t.setDaemon(true);
        return t;
    });
    /** How long close() waits for a running compaction or collection. */
    private final Duration closeWait;

    /** Set by close(): a run still going commits and removes nothing more. */
    private final AtomicBoolean closing = new AtomicBoolean();

    /** Set by close() when it stops waiting: a run merges no further generation and collects nothing. */
    private volatile boolean stopping;
    /** The compactor of the run under way, so that close() can stop it between generations. */
    private volatile TableCompaction compacting;

    private Future<?> running;
    private long lastStart = Long.MIN_VALUE / 2;

    SinkMaintenance(
            String path,
            TableLocation location,
            boolean compaction,
            Duration gcRetention,
            Duration consumerExpiration,
            long minIntervalMillis,
            ShardWriterMetrics metrics,
            LeaseClaimant claimant,
            Duration closeWait) {
        this.claimant = claimant.fencedWhen(closing::get);
        this.closeWait = closeWait;
        this.path = path;
        this.location = location;
        this.compaction = compaction;
        this.gcRetention = gcRetention;
        this.consumerExpiration = consumerExpiration;
        this.collector = gcRetention == null
                ? null
                : new GarbageCollector(
                        location.store(),
                        GarbageCollector.Options.retaining(gcRetention).consumerExpiration(consumerExpiration),
                        Clock.systemUTC(),
                        this.claimant);
        this.minIntervalMillis = minIntervalMillis;
        this.metrics = metrics;
        this.allocator = SinkAllocators.open(Long.MAX_VALUE, 0, "maintenance of " + path);
    }

    /**
     * Maintenance for writer subtask {@code subtask}: on subtask 0 when either action is on, else
     * null. A table without a primary key ({@code keyed} false: an append table without walsink's
     * generated row key) is not compacted: nothing merges its rows into the base table exactly once
     * (docs/architecture.md, "Append tables").
     */
    static SinkMaintenance forSubtask(
            WalSinkOptions options,
            int subtask,
            ObjectStore store,
            ShardWriterMetrics metrics,
            LeaseClaimant claimant,
            boolean keyed) {
        SinkSettings settings = options.settings();
        boolean compaction = settings.get(SinkOptions.COMPACTION_ENABLED) && keyed;
        if (subtask == 0 && !keyed && settings.get(SinkOptions.COMPACTION_ENABLED)) {
            LOG.info(
                    "{} is an append table without walsink's row key (bucketed on a column, or created by an"
                            + " earlier release): {} does not apply to it, its rows stay in the shards' SSTables",
                    options.path(),
                    SinkOptions.COMPACTION_ENABLED.key());
        }
        boolean collection = settings.get(SinkOptions.GC_ENABLED);
        if (subtask != 0 || !(compaction || collection)) {
            return null;
        }
        return new SinkMaintenance(
                options.path(),
                options.location(store),
                compaction,
                collection ? settings.get(SinkOptions.GC_RETENTION) : null,
                settings.get(SinkOptions.GC_CONSUMER_EXPIRATION),
                settings.get(SinkOptions.MAINTENANCE_INTERVAL).toMillis(),
                metrics,
                claimant,
                CLOSE_WAIT);
    }

    /** Starts a run unless one is running or the last one started less than the interval ago. */
    void checkpointCompleted(long now) {
        if ((running != null && !running.isDone()) || now - lastStart < minIntervalMillis) {
            return;
        }
        lastStart = now;
        running = thread.submit(this::runOnce);
    }

    private void runOnce() {
        if (compaction) {
            try {
                TableCompaction compactor = new TableCompaction(location, allocator, options(), claimant)
                        .consumerExpiration(consumerExpiration);
                compacting = compactor;
                if (stopping) {
                    compactor.requestStop(); // close() came before this run saw its compactor
                }
                CompactionResult result = compactor.run();
                metrics.compacted(result.mergedGenerations());
            } catch (CompactionLeaseException e) {
                if (closing.get()) {
                    LOG.info("walsink compaction of {} stopped: the sink is closing", path);
                    return;
                }
                // Another compactor runs, or one that died holds the lease until it expires: expected, no trace.
                metrics.compactionFailed();
                LOG.warn("walsink compaction of {} did not run: {}; the next run tries again", path, e.getMessage());
            } catch (RuntimeException e) {
                metrics.compactionFailed();
                LOG.warn("walsink compaction of {} failed; the next run retries it", path, e);
            }
        }
        if (collector != null && !stopping) {
            try {
                GcSummary summary = collector.collect();
                metrics.collected(summary.bytes());
            } catch (CompactionLeaseException e) {
                if (closing.get()) {
                    LOG.info("walsink garbage collection of {} stopped: the sink is closing", path);
                    return;
                }
                // A standalone compactor or collector holds the table's maintenance lease: expected, no trace.
                metrics.gcFailed();
                LOG.warn(
                        "walsink garbage collection of {} did not run: {}; the next run tries again",
                        path,
                        e.getMessage());
            } catch (RuntimeException e) {
                metrics.gcFailed();
                LOG.warn("walsink garbage collection of {} failed; the next run retries it", path, e);
            }
        }
    }

    /**
     * With garbage collection on, the base table is tidied too: small fragments rewritten (index
     * remapping deferred, as lance-core 7.0.0 requires for MemWAL tables) and versions older than
     * the retention removed, since every merge commit leaves a version behind.
     */
    CompactorOptions options() {
        CompactorOptions bounded = CompactorOptions.defaults().withMaxRunTime(runTime(minIntervalMillis));
        if (gcRetention == null) {
            return bounded;
        }
        return bounded.withFileCompaction(CompactionOptions.builder()
                        .withTargetRowsPerFragment(1_000_000)
                        .withDeferIndexRemap(true)
                        .build())
                .withCleanupRetention(gcRetention);
    }

    /**
     * A compaction run's time budget: the maintenance interval, so that maintenance keeps at most
     * about one thread busy and merges as fast as one thread can when behind, at least
     * {@link #MIN_RUN_TIME}.
     */
    static Duration runTime(long intervalMillis) {
        Duration interval = Duration.ofMillis(intervalMillis);
        return interval.compareTo(MIN_RUN_TIME) < 0 ? MIN_RUN_TIME : interval;
    }

    /** No generation, collection or commit starts any more; a commit or removal under way still lands. */
    private void stop() {
        stopping = true;
        TableCompaction current = compacting;
        if (current != null) {
            current.requestStop();
        }
        closing.set(true);
    }

    /** As {@link #close(boolean)} for a task that failed or was cancelled: the run is fenced at once. */
    @Override
    public void close() throws InterruptedException {
        close(false);
    }

    /**
     * Ends the maintenance thread before returning, or fences it. A running compaction or
     * collection is asked to stop (no generation or collection starts after) and fenced, so that it stops before its next commit or removal (the one under way,
     * atomic, still lands): at once, or, when {@code letRunFinish} (the input ended and the task
     * finished), only if it has not ended within the wait. Then the thread's memory is freed. A run
     * stuck in a store or lance-core call past the wait stays fenced: after close() returns it
     * changes nothing more in the table (it may still release the lease).
     */
    void close(boolean letRunFinish) throws InterruptedException {
        thread.shutdown();
        long waitMillis = closeWait.toMillis();
        if (letRunFinish) {
            // Half the wait for the run to end on its own, the rest once fenced.
            if (thread.awaitTermination(waitMillis / 2, TimeUnit.MILLISECONDS)) {
                SinkAllocators.close(allocator, "maintenance of " + path);
                return;
            }
            waitMillis -= waitMillis / 2;
        }
        stop();
        if (thread.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
            SinkAllocators.close(allocator, "maintenance of " + path);
        } else {
            thread.shutdownNow();
            LOG.warn(
                    "walsink maintenance of {} did not end within {} s; it is fenced (it commits and removes nothing"
                            + " more) and its memory is left to the garbage collector",
                    path,
                    closeWait.toSeconds());
        }
    }
}
