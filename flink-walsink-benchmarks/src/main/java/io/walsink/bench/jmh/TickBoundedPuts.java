package io.walsink.bench.jmh;

import io.walsink.bench.support.BatchRowWriter;
import io.walsink.bench.support.KeyValueRows;
import io.walsink.bench.support.LocalShardTable;
import io.walsink.bench.support.PolledTimer;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Not a timing benchmark: drives one shard with a simulated clock at a given row rate for one
 * simulated second and counts the WAL entries (object-store PUTs) it made. The ticker should
 * keep that at about one per flush interval whatever the rate; only the entry size grows.
 */
final class TickBoundedPuts {
    static final long SIMULATED_MILLIS = 1_000;

    record Outcome(
            int rowsPerSecond, long intervalMillis, long rows, long walEntries, long walBytes, long pendingAtEnd) {
        long bytesPerEntry() {
            return walEntries == 0 ? 0 : walBytes / walEntries;
        }

        long rowsPerEntry() {
            return walEntries == 0 ? 0 : (rows - pendingAtEnd) / walEntries;
        }
    }

    private TickBoundedPuts() {}

    static Outcome run(int rowsPerSecond, ShardWriterConfig config) {
        AtomicLong clock = new AtomicLong(1_000_000);
        int rows = (int) (rowsPerSecond * SIMULATED_MILLIS / 1_000);
        try (BufferAllocator allocator = new RootAllocator();
                LocalShardTable table = LocalShardTable.create(allocator, config);
                VectorSchemaRoot input = KeyValueRows.randomBatch(allocator, rows, 1_000_000, new SplittableRandom(5));
                ShardWriter writer = table.openShard()) {
            // The production driver, its I/O inline, its timer the simulated clock's.
            QueuedShardIo io = new QueuedShardIo(Runnable::run);
            PolledTimer timer = new PolledTimer();
            ShardDrivers drivers = ShardDrivers.unbudgeted(io, timer, clock::get);
            ShardDriver shard = drivers.add(0, writer);
            BatchRowWriter row = new BatchRowWriter(input);
            long start = clock.get();
            for (int i = 0; i < rows; i++) {
                long now = start + i * SIMULATED_MILLIS / rows;
                clock.set(now);
                row.at = i;
                drivers.write(shard, row, false);
                io.runCompleted();
                timer.fireIfDue(drivers, now); // the owner's processing-time timer
                io.runCompleted();
            }
            return new Outcome(
                    rowsPerSecond,
                    config.flushInterval().toMillis(),
                    rows,
                    writer.stats().walAppends(),
                    writer.stats().walBytes(),
                    writer.pendingRows());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
