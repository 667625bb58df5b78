package io.walsink.bench.engine;

import io.walsink.bench.support.BatchRowWriter;
import io.walsink.bench.support.PolledTimer;
import io.walsink.bench.support.ProcessCpu;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes batches into one of our shard writers through the same {@link ShardDrivers} the Flink
 * operator uses: rows on the owner thread, WAL appends and SSTable writes on an I/O thread, their
 * completions run on the owner thread between batches, the ticker's timer read from the wall
 * clock between batches. At the end every row is appended, so the run ends with all rows durable.
 */
final class TickedShardWrites implements AutoCloseable {
    /** How rows reach the writer. */
    enum Path {
        /** {@code put} of each Arrow batch: tools and bulk loads. */
        BATCH,
        /** One {@code RowWriter} call per row, as the Flink operator writes: the production path. */
        ROW_BY_ROW
    }

    /**
     * Nanoseconds until the last row was written, and until every row was durable; the process's
     * CPU nanoseconds until the last row (the I/O thread's WAL appends included).
     */
    record Timing(long putNanos, long durableNanos, long putCpuNanos, long walAppends, long walBytes) {}

    private final ExecutorService ioThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "walsink-bench-io");
        t.setDaemon(true);
        return t;
    });

    Timing run(ShardWriter writer, List<VectorSchemaRoot> batches) {
        return run(writer, batches, Path.BATCH);
    }

    Timing run(ShardWriter writer, List<VectorSchemaRoot> batches, Path path) {
        QueuedShardIo io = new QueuedShardIo(ioThread);
        PolledTimer timer = new PolledTimer();
        ShardDrivers drivers = ShardDrivers.unbudgeted(io, timer, System::currentTimeMillis);
        try {
            ShardDriver shard = drivers.add(0, writer);
            long cpuStart = ProcessCpu.nanos();
            long start = System.nanoTime();
            write(drivers, shard, io, timer, batches, path);
            long putsDone = System.nanoTime();
            long putCpu = ProcessCpu.nanos() - cpuStart;
            drivers.drainAppends();
            long durable = System.nanoTime();
            return new Timing(
                    putsDone - start,
                    durable - start,
                    putCpu,
                    writer.stats().walAppends(),
                    writer.stats().walBytes());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Writes every batch into {@code shard}, running I/O completions and due ticks after each. */
    static void write(
            ShardDrivers drivers,
            ShardDriver shard,
            QueuedShardIo io,
            PolledTimer timer,
            List<VectorSchemaRoot> batches,
            Path path)
            throws InterruptedException {
        for (VectorSchemaRoot batch : batches) {
            if (path == Path.BATCH) {
                drivers.put(shard, batch);
            } else {
                BatchRowWriter row = new BatchRowWriter(batch);
                for (int i = 0, n = batch.getRowCount(); i < n; i++) {
                    row.at = i;
                    drivers.write(shard, row, false);
                }
            }
            io.runCompleted();
            timer.fireIfDue(drivers, System.currentTimeMillis());
        }
    }

    @Override
    public void close() {
        ioThread.shutdownNow();
    }
}
