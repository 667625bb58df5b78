package io.walsink.bench.engine;

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
        /**
         * One {@code RowWriter} call per row, as the Flink operator writes: binary rows (as its
         * {@code keyBy} hands them over) through the operator's own row writer, the production path.
         */
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
        BinaryRows rows = path == Path.ROW_BY_ROW ? BinaryRows.of(batches) : null; // before the timing
        QueuedShardIo io = new QueuedShardIo(ioThread);
        PolledTimer timer = new PolledTimer();
        ShardDrivers drivers = ShardDrivers.unbudgeted(io, timer, System::currentTimeMillis);
        try {
            ShardDriver shard = drivers.add(0, writer);
            long cpuStart = ProcessCpu.nanos();
            long start = System.nanoTime();
            write(drivers, shard, io, timer, batches, rows);
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

    /**
     * Writes every batch into {@code shard}, as batch puts or (when {@code rows} holds them as
     * binary rows) row by row, running I/O completions and due ticks after each batch.
     */
    static void write(
            ShardDrivers drivers,
            ShardDriver shard,
            QueuedShardIo io,
            PolledTimer timer,
            List<VectorSchemaRoot> batches,
            BinaryRows rows)
            throws InterruptedException {
        for (int b = 0; b < batches.size(); b++) {
            if (rows == null) {
                drivers.put(shard, batches.get(b));
            } else {
                for (int i = 0, n = rows.rows(b); i < n; i++) {
                    drivers.write(shard, rows.at(b, i), false);
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
