package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.shard.io.SsTableFlush;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shards of one owner share its capped Arrow allocator. Shard B's SSTable write runs on an I/O
 * thread and is held mid-write, once it has allocated most of its copy; meanwhile shard A's write
 * is to start on the owner's thread. The cap holds both memtables and room for one write, not two:
 * A's write must wait until B's gives its memory back, then run, and both SSTables are written and
 * read back. The hold is made by the allocator's listener on B's thread and released by the test,
 * so the overlap is the same on every run; nothing is timed.
 */
class ShardWriterFlushMemoryTest {
    private static final String WIDE = "x".repeat(500);
    private static final int ROWS = 8_000;

    @TempDir
    Path dirA;

    @TempDir
    Path dirB;

    @Test
    void aWriteWaitsForTheRoomAnotherWriteInFlightHoldsRatherThanReachTheCap() throws Exception {
        // Small batches: every row is copied into one gathered batch, which lance-core writes whole.
        ShardWriterConfig config = ShardWriterConfig.builder()
                .batchMaxRows(512)
                .memtableMaxBytes(64L << 20)
                .maxUnflushedBytes(64L << 20)
                .build();
        HoldOnThread hold = new HoldOnThread();
        try (RootAllocator capped = new RootAllocator(hold, Long.MAX_VALUE);
                ShardFixture a = new ShardFixture(dirA, WalSchemaProfile.SPEC, config);
                ShardFixture b = new ShardFixture(dirB, WalSchemaProfile.SPEC, config)) {
            ShardWriter writerA = a.open(a.contextOver(a.store, config, capped));
            ShardWriter writerB = b.open(b.contextOver(b.store, config, capped));
            for (ShardFixture f : new ShardFixture[] {a, b}) {
                ShardWriter w = f == a ? writerA : writerB;
                for (long id = 0; id < ROWS; id++) {
                    f.put(w, id, WIDE + id);
                }
                w.freezeActive();
                w.appendAllPending();
            }
            // Both memtables, and room for one write of one of them (about 1.1 times its rows' bytes).
            long memtables = capped.getAllocatedMemory();
            capped.setLimit(memtables + writerB.unflushedBytes() * 27 / 20);

            SsTableFlush flushB = writerB.beginFlush().orElseThrow();
            Thread io = new Thread(
                    () -> {
                        try {
                            flushB.run();
                        } finally {
                            hold.heldOrDone.countDown();
                        }
                    },
                    "walsink-io-test");
            hold.holdAfter(io, writerB.unflushedBytes() * 3 / 4);
            io.start();
            hold.heldOrDone.await(); // B's write holds most of its copy, or (reserved) ran to its end

            Optional<SsTableFlush> flushA = writerA.beginFlush();
            if (flushA.isPresent()) { // started at once: it must then fit beside B's write
                flushA.get().run();
                writerA.completeFlush(flushA.get());
            }
            hold.release.countDown();
            io.join();
            writerB.completeFlush(flushB);
            if (flushA.isEmpty()) { // waited for B's write: it fits now
                SsTableFlush later = writerA.beginFlush().orElseThrow();
                later.run();
                writerA.completeFlush(later);
            }

            assertThat(flushA).as("A's write, while B's held the room").isEmpty();
            assertThat(writerA.stats().sstablesWritten()).isOne();
            assertThat(writerB.stats().sstablesWritten()).isOne();
            SyncShardDriver.publishAll(writerA);
            SyncShardDriver.publishAll(writerB);
            assertThat(a.read(ReadMode.COMMITTED)).isEqualTo(a.model);
            assertThat(b.read(ReadMode.COMMITTED)).isEqualTo(b.model);
            assertThat(capped.getPeakMemoryAllocation()).isLessThanOrEqualTo(capped.getLimit());
            writerA.close();
            writerB.close();
        }
    }

    /**
     * The owner's side: a write that finds no room for its reservation waits with the drivers, and
     * the completion of the write holding the room starts it; no other call is needed. I/O runs
     * inline and completions when the test runs them.
     */
    @Test
    void aWriteWaitingForMemoryStartsWhenAnotherWriteCompletes() throws Exception {
        ShardWriterConfig config = ShardWriterConfig.builder()
                .batchMaxRows(512)
                .memtableMaxBytes(64L << 20)
                .maxUnflushedBytes(64L << 20)
                .build();
        try (RootAllocator capped = new RootAllocator();
                ShardFixture a = new ShardFixture(dirA, WalSchemaProfile.SPEC, config);
                ShardFixture b = new ShardFixture(dirB, WalSchemaProfile.SPEC, config)) {
            ShardWriter writerA = a.open(a.contextOver(a.store, config, capped));
            ShardWriter writerB = b.open(b.contextOver(b.store, config, capped));
            for (ShardFixture f : new ShardFixture[] {a, b}) {
                ShardWriter w = f == a ? writerA : writerB;
                for (long id = 0; id < ROWS; id++) {
                    f.put(w, id, WIDE + id);
                }
                w.freezeActive();
                w.appendAllPending();
            }
            long memtables = capped.getAllocatedMemory();
            capped.setLimit(memtables + writerB.unflushedBytes() * 27 / 20);
            QueuedShardIo io = new QueuedShardIo(Runnable::run);
            ShardDrivers drivers = ShardDrivers.unbudgeted(io, (bucket, due) -> {}, () -> 0L);

            drivers.add(1, writerB); // its write starts, runs, and holds its reservation until completed
            drivers.add(0, writerA);

            assertThat(writerB.flushInFlight()).isTrue();
            assertThat(writerA.flushInFlight()).isFalse();
            assertThat(writerA.flushWaitsForMemory()).isTrue();
            assertThat(capped.getAllocatedMemory()).isGreaterThan(memtables);

            io.runCompleted(); // B's completion gives its memory back and starts A's write, whose completion follows

            assertThat(io.idle()).isTrue();
            assertThat(writerA.stats().sstablesWritten()).isOne();
            assertThat(writerB.stats().sstablesWritten()).isOne();
            assertThat(writerA.flushWaitsForMemory()).isFalse();
            assertThat(capped.getAllocatedMemory())
                    .as("both memtables and reservations given back")
                    .isZero();
            drivers.closeAll();
        }
    }

    /** Holds one thread inside an allocation once it has allocated a given amount, until released. */
    private static final class HoldOnThread implements AllocationListener {
        final CountDownLatch heldOrDone = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicLong allocated = new AtomicLong();
        private volatile Thread thread;
        private volatile long after = Long.MAX_VALUE;

        void holdAfter(Thread t, long bytes) {
            after = bytes;
            thread = t;
        }

        @Override
        public void onAllocation(long size) {
            if (Thread.currentThread() != thread) {
                return;
            }
            long before = allocated.getAndAdd(size);
            if (before < after && before + size >= after) {
                heldOrDone.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
