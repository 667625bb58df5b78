package io.walsink.flink.internal;

import io.walsink.flink.WalSinkOptions;
import io.walsink.maintenance.CompactionLeaseException;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.GarbageCollector;
import io.walsink.maintenance.GcSummary;
import io.walsink.maintenance.LeaseClaimant;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.storage.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.cleanup.CleanupPolicy;
import org.lance.compaction.CompactionOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table maintenance from inside the sink: compaction into the Lance base table
 * ({@code sink.compaction.enabled}), then garbage collection ({@code sink.gc.enabled}). One writer
 * subtask per table runs it on a thread of its own after completed checkpoints, at most once per
 * {@code sink.maintenance.interval} and one run at a time, so the writers never wait for it. A
 * failed run is logged and counted; the next one retries (both actions are idempotent).
 */
final class SinkMaintenance implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkMaintenance.class);
    private static final long CLOSE_WAIT_SECONDS = 60;

    private final String path;
    private final BufferAllocator allocator = SinkAllocators.open(Long.MAX_VALUE);
    private final ObjectStore store;
    private final String lanceUri;
    private final Map<String, String> lanceStorageOptions;
    private final boolean compaction;
    private final Duration gcRetention;
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
    private Future<?> running;
    private long lastStart = Long.MIN_VALUE / 2;

    SinkMaintenance(
            String path,
            ObjectStore store,
            String lanceUri,
            Map<String, String> lanceStorageOptions,
            boolean compaction,
            Duration gcRetention,
            long minIntervalMillis,
            ShardWriterMetrics metrics,
            LeaseClaimant claimant) {
        this.claimant = claimant;
        this.path = path;
        this.store = store;
        this.lanceUri = lanceUri;
        this.lanceStorageOptions = lanceStorageOptions;
        this.compaction = compaction;
        this.gcRetention = gcRetention;
        this.collector = gcRetention == null
                ? null
                : new GarbageCollector(
                        store, GarbageCollector.Options.retaining(gcRetention), Clock.systemUTC(), claimant);
        this.minIntervalMillis = minIntervalMillis;
        this.metrics = metrics;
    }

    /** Maintenance for writer subtask {@code subtask}: on subtask 0 when either action is on, else null. */
    static SinkMaintenance forSubtask(
            WalSinkOptions options,
            int subtask,
            ObjectStore store,
            ShardWriterMetrics metrics,
            LeaseClaimant claimant) {
        ShardWriterConfig config = options.shardWriterConfig();
        if (subtask != 0 || !(config.compaction() || config.garbageCollection())) {
            return null;
        }
        return new SinkMaintenance(
                options.path(),
                store,
                options.lanceUri(),
                options.lanceStorageOptions(),
                config.compaction(),
                config.garbageCollection() ? config.gcRetention() : null,
                config.maintenanceInterval().toMillis(),
                metrics,
                claimant);
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
                CompactionResult result =
                        new Compactor(store, lanceUri, lanceStorageOptions, allocator, options(), claimant).run();
                metrics.compacted(result.mergedGenerations());
            } catch (CompactionLeaseException e) {
                // Another compactor runs, or one that died holds the lease until it expires: expected, no trace.
                metrics.compactionFailed();
                LOG.warn("walsink compaction of {} did not run: {}; the next run tries again", path, e.getMessage());
            } catch (RuntimeException e) {
                metrics.compactionFailed();
                LOG.warn("walsink compaction of {} failed; the next run retries it", path, e);
            }
        }
        if (collector != null) {
            try {
                GcSummary summary = collector.collect();
                metrics.collected(summary.bytes());
            } catch (CompactionLeaseException e) {
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
    private CompactorOptions options() {
        if (gcRetention == null) {
            return CompactorOptions.defaults();
        }
        return CompactorOptions.defaults()
                .withFileCompaction(CompactionOptions.builder()
                        .withTargetRowsPerFragment(1_000_000)
                        .withDeferIndexRemap(true)
                        .build())
                .withCleanup(CleanupPolicy.builder()
                        .withBeforeTimestampMillis(System.currentTimeMillis() - gcRetention.toMillis())
                        .build());
    }

    /** Lets a running compaction or collection finish (each step is atomic), then frees its memory. */
    @Override
    public void close() throws InterruptedException {
        thread.shutdown();
        if (thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
            SinkAllocators.close(allocator, "maintenance of " + path);
        } else {
            thread.shutdownNow();
            LOG.warn(
                    "walsink compaction of {} did not end within {} s; its memory is left to the garbage collector",
                    path,
                    CLOSE_WAIT_SECONDS);
        }
    }
}
