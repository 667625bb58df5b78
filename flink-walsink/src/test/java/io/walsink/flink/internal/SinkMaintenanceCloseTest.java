package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.recovery.CompactionLeaseHolder;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/**
 * The sink's maintenance thread does not outlive the operator's close(). A run that
 * close() cannot wait for (here a store call that hangs past the wait) is fenced: once close()
 * has returned it removes nothing more, and it leaves the lease free when it ends.
 */
class SinkMaintenanceCloseTest {
    private static final Instant WRITTEN = Instant.parse("2020-06-01T00:00:00Z");
    private static final Duration RETENTION = Duration.ofSeconds(1);
    private static final List<String> RECORDS = List.of(
            "_walsink/jobs/j1/bucket-0.bin",
            "_walsink/jobs/j1/bucket-1.bin",
            "_walsink/jobs/j2/bucket-0.bin",
            "_walsink/jobs/j2/bucket-1.bin",
            "_walsink/jobs/j3/bucket-0.bin");

    @Test
    void aRunThatOutlastsCloseRemovesNothingAfterCloseReturned() throws Exception {
        // Written long ago: every record is older than the retention.
        InMemoryObjectStore objects = new InMemoryObjectStore("table", Clock.fixed(WRITTEN, ZoneOffset.UTC));
        for (String record : RECORDS) {
            objects.put(record, new byte[] {1});
        }
        CountDownLatch inFirstDelete = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> maintenanceThread = new AtomicReference<>();
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger deletesAfterClose = new AtomicInteger();
        ForwardingObjectStore hanging = new ForwardingObjectStore(objects) {
            @Override
            public void delete(String key) {
                if (key.startsWith("_walsink/compaction-lease/")) {
                    super.delete(key); // the lease's own entries: releasing it is what a fenced run should do
                    return;
                }
                if (closed.get()) {
                    deletesAfterClose.incrementAndGet();
                }
                if (maintenanceThread.compareAndSet(null, Thread.currentThread())) {
                    inFirstDelete.countDown();
                    awaitUninterruptibly(release); // a store call that hangs past close()'s wait
                }
                super.delete(key);
            }
        };
        SinkMaintenance maintenance = new SinkMaintenance(
                "table",
                new TableLocation(hanging, "unused", Map.of()),
                false,
                RETENTION,
                GarbageCollector.DEFAULT_CONSUMER_EXPIRATION,
                0,
                new ShardWriterMetrics(UnregisteredMetricsGroup.createOperatorMetricGroup()),
                LeaseClaimant.job("job-1", List.of("job-1")),
                Duration.ZERO);

        maintenance.checkpointCompleted(0);
        inFirstDelete.await();
        maintenance.close();
        closed.set(true);
        release.countDown();
        maintenanceThread.get().join();

        assertThat(deletesAfterClose)
                .as("table objects removed after close() returned")
                .hasValue(0);
        assertThat(RECORDS.stream().filter(objects::exists).count())
                .as("only the removal in flight at close() landed")
                .isEqualTo(RECORDS.size() - 1);
        assertThat(CompactionLeaseHolder.read(objects).orElseThrow().heldAt(Instant.now()))
                .as("the fenced run released the lease when it ended")
                .isFalse();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
