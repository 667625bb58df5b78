package io.walsink.flink.internal;

import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.storage.ObjectStore;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction into the Lance base table from inside the sink ({@code sink.compaction.enabled}): one
 * writer subtask per table runs it on a thread of its own after completed checkpoints, at most
 * once per minimum interval and one run at a time, so the writers never wait for it. A failed run
 * is logged and counted; the next one retries (compaction is idempotent).
 */
final class SinkCompaction implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkCompaction.class);
    private static final long CLOSE_WAIT_SECONDS = 60;

    private final String path;
    private final BufferAllocator allocator = new RootAllocator();
    private final Compactor compactor;
    private final long minIntervalMillis;
    private final ShardWriterMetrics metrics;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "walsink-compaction");
        t.setDaemon(true);
        return t;
    });
    private Future<?> running;
    private long lastStart = Long.MIN_VALUE / 2;

    SinkCompaction(
            String path,
            ObjectStore store,
            String lanceUri,
            Map<String, String> lanceStorageOptions,
            long minIntervalMillis,
            ShardWriterMetrics metrics) {
        this.path = path;
        this.compactor = new Compactor(store, lanceUri, lanceStorageOptions, allocator, CompactorOptions.defaults());
        this.minIntervalMillis = minIntervalMillis;
        this.metrics = metrics;
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
        try {
            CompactionResult result = compactor.run();
            metrics.compacted(result.mergedGenerations());
        } catch (RuntimeException e) {
            metrics.compactionFailed();
            LOG.warn("walsink compaction of {} failed; the next run retries it", path, e);
        }
    }

    /** Lets a running compaction finish (its commits are atomic), then frees its memory. */
    @Override
    public void close() throws InterruptedException {
        thread.shutdown();
        if (thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
            allocator.close();
        } else {
            thread.shutdownNow();
            LOG.warn(
                    "walsink compaction of {} did not end within {} s; its memory is left to the garbage collector",
                    path,
                    CLOSE_WAIT_SECONDS);
        }
    }
}
