package io.walsink.bench;

import io.walsink.shard.ShardWriter;
import io.walsink.shard.WalAppend;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Puts batches into one of our shard writers the way the Flink operator drives it: puts on the
 * owner thread, a WAL append whenever the flush ticker is due (or a memtable asks for one early),
 * run on an I/O thread and handed back on the owner thread between puts. At the end every row
 * is appended, so the run ends with all rows durable in the WAL.
 */
final class TickedShardWrites implements AutoCloseable {
    /**
     * Nanoseconds until the last put returned, and until every row was durable; the process's CPU
     * nanoseconds until the last put (the I/O thread's WAL appends included).
     */
    record Timing(long putNanos, long durableNanos, long putCpuNanos, long walAppends, long walBytes) {}

    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "walsink-bench-io");
        t.setDaemon(true);
        return t;
    });

    private WalAppend inFlight;
    private Future<?> running;

    Timing run(ShardWriter writer, List<VectorSchemaRoot> batches) {
        long cpuStart = ProcessCpu.nanos();
        long start = System.nanoTime();
        for (VectorSchemaRoot batch : batches) {
            writer.put(batch);
            handBackIfDone(writer);
            long now = System.currentTimeMillis();
            boolean tick = now >= writer.nextTickAt(now);
            if (inFlight == null && (tick || writer.wantsEarlyAppend())) {
                if (tick) {
                    writer.recordTick(now);
                }
                startAppend(writer);
            }
        }
        long putsDone = System.nanoTime();
        long putCpu = ProcessCpu.nanos() - cpuStart;
        while (inFlight != null || writer.hasPendingRows()) {
            if (inFlight != null) {
                waitFor(running);
                handBackIfDone(writer);
            } else {
                startAppend(writer);
            }
        }
        long durable = System.nanoTime();
        return new Timing(
                putsDone - start,
                durable - start,
                putCpu,
                writer.stats().walAppends(),
                writer.stats().walBytes());
    }

    private void startAppend(ShardWriter writer) {
        Optional<WalAppend> append = writer.beginAppend();
        if (append.isPresent()) {
            inFlight = append.get();
            running = io.submit(inFlight);
        }
    }

    private void handBackIfDone(ShardWriter writer) {
        if (inFlight != null && running.isDone()) {
            WalAppend done = inFlight;
            inFlight = null;
            writer.completeAppend(done);
        }
    }

    private static void waitFor(Future<?> future) {
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause()); // run() keeps failures; this is not expected
        }
    }

    @Override
    public void close() {
        io.shutdownNow();
    }
}
