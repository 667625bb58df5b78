package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.runMailsUntil;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mailbox yield can run another bucket's ticker timer, and Flink leaves the current key set to
 * that bucket. A timer the writer registers after such a yield must still belong to its own
 * bucket, or the bucket loses its ticker and its rows wait forever.
 */
class TickerTimerKeyTest {
    private static final String BIG = "x".repeat(30 * 1024);

    @TempDir
    Path dir;

    @AfterEach
    void openGate() {
        GatedStore.open();
    }

    @Test
    void aTimerArmedAfterAYieldBelongsToItsOwnBucket() throws Exception {
        // 1 MiB budget and WAL buffer, 63 rows of 30 KiB per memtable: one frozen memtable alone is over
        // budget, so the next row of its bucket that looks at the budget yields while its SSTable is written.
        // (Budgets are looked at every 64th row of the bucket. The row that yields is both the bucket's
        // 64th and the subtask's 128th, so a look every 64th row of the subtask would yield there too.)
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(63)
                .memtableMaxBytes(1 << 20)
                .walMaxBufferBytes(1 << 20)
                .maxUnflushedBytes(1 << 20)
                .ioThreads(1)
                .storeWrapper(GatedStore::new)
                .build();
        long a = HarnessSupport.idInBucket(sink, 0);
        long b = HarnessSupport.idInBucket(sink, 1);
        GatedStore.closeFor(null);
        try (SinkHarness h = SinkHarness.of(sink, false)) {
            h.open();
            h.setProcessingTime(0);
            for (int i = 1; i <= 63; i++) { // bucket A; the 63rd row freezes and appends the memtable
                h.processElement(upsert(a, BIG + i), 0);
            }
            // The append's PUT lands; its completion (which starts A's SSTable write) waits in the mailbox.
            awaitWithoutRunningMails(() -> HarnessSupport.walEntries(dir.resolve("table")) == 1);

            // Bucket B's append holds the only I/O thread, so A's SSTable write will wait behind it.
            GatedStore.closeFor("/wal/");
            for (int i = 1; i <= 64; i++) { // B's 63rd row freezes its memtable and starts its append
                h.processElement(upsert(b, "b" + i), 0);
            }
            awaitWithoutRunningMails(
                    () -> GatedStore.held() == 1 && h.getTaskMailbox().hasMail());
            runQueuedMails(h); // A's append completes: nothing pending, its SSTable write queued
            h.setProcessingTime(1); // A's ticker fires with nothing pending, so A is left unarmed
            assertThat(h.numProcessingTimeTimers())
                    .as("only B's ticker is armed")
                    .isEqualTo(1);

            // A's 64th row looks at its budget and yields until its SSTable is written. In that
            // yield B's ticker fires (Flink sets the current key to B), then B's append is let go.
            AtomicBoolean ranInYield = new AtomicBoolean();
            h.getTaskMailbox()
                    .put(new Mail(
                            () -> {
                                ranInYield.set(true);
                                h.setProcessingTime(101);
                                GatedStore.open();
                            },
                            TaskMailbox.MAX_PRIORITY,
                            "B's ticker fires during A's yield"));
            h.processElement(upsert(a, "after the yield"), 1);
            assertThat(ranInYield).as("the budget check yielded to the mailbox").isTrue();

            // Nothing else arrives: A's ticker alone must make its last row durable.
            for (long t = 700; t <= 1_500; t += 100) {
                h.setProcessingTime(t);
                HarnessSupport.settle(h, 20);
            }
            runMailsUntil(h, () -> "after the yield"
                    .equals(read(dir.resolve("table"), ReadMode.LATEST).get(a)));
        }
    }

    private static void awaitWithoutRunningMails(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within 30 s");
            }
            Thread.sleep(2);
        }
    }

    private static void runQueuedMails(SinkHarness h) throws Exception {
        for (var mail = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
                mail.isPresent();
                mail = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY)) {
            mail.get().run();
        }
    }
}
