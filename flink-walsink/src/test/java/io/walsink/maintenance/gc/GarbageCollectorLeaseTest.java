package io.walsink.maintenance.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.maintenance.CompactorOptions;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Garbage collection runs under the table's maintenance lease, the same one as
 * compaction, so that one table is never compacted or collected in two places at once.
 */
class GarbageCollectorLeaseTest {
    private static final Instant WRITTEN = Instant.parse("2030-06-01T00:00:00Z");
    private static final Duration RETENTION = Duration.ofDays(2);
    private static final Instant NOW = WRITTEN.plus(RETENTION).plusSeconds(60);
    private static final Duration LEASE = CompactorOptions.DEFAULT_LEASE_DURATION;
    private static final String RECORD = "_walsink/jobs/j1/bucket-0.bin";

    private final InMemoryObjectStore store = new InMemoryObjectStore("table", Clock.fixed(WRITTEN, ZoneOffset.UTC));
    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

    private GarbageCollector collector(ObjectStore on) {
        return new GarbageCollector(on, GarbageCollector.Options.retaining(RETENTION), clock);
    }

    private CompactionLease take(ObjectStore on, String holder) {
        return CompactionLease.acquire(on, "table", holder, LEASE, clock::millis);
    }

    @Test
    void aCollectorIsRefusedWhileAnotherHoldsTheLeaseNamingItAndRemovesNothing() {
        store.put(RECORD, new byte[] {1, 2, 3}); // a job-start record older than the retention
        try (CompactionLease other = take(store, "collector-a")) {
            assertThatThrownBy(() -> collector(store).collect())
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("collector-a");
            assertThat(store.exists(RECORD))
                    .as("nothing removed by the refused run")
                    .isTrue();
        }
        assertThat(collector(store).collect().jobRecords()).isEqualTo(1);
        assertThat(store.exists(RECORD)).isFalse();
    }

    @Test
    void aRunningCollectorHoldsTheLeaseAgainstCompactorsAndCollectorsAndReleasesItAtTheEnd() {
        store.put(RECORD, new byte[] {1, 2, 3});
        AtomicReference<Throwable> secondCompactor = new AtomicReference<>();
        AtomicReference<Throwable> secondCollector = new AtomicReference<>();
        ObjectStore observed = new ForwardingObjectStore(store) {
            @Override
            public void delete(String key) {
                if (key.equals(RECORD)) { // in the middle of the run
                    secondCompactor.set(
                            catching(() -> take(store, "compactor-b").close()));
                    secondCollector.set(catching(() -> collector(store).collect()));
                }
                super.delete(key);
            }
        };
        collector(observed).collect();
        assertThat(secondCompactor.get())
                .as("a compactor during the collection")
                .isInstanceOf(CompactionLeaseException.class);
        assertThat(secondCollector.get())
                .as("a second collector during the collection")
                .isInstanceOf(CompactionLeaseException.class);
        try (CompactionLease after = take(store, "compactor-b")) {
            assertThat(after).as("released when the run ended").isNotNull();
        }
    }

    @Test
    void aDryRunRemovesNothingAndNeedsNoLease() {
        store.put(RECORD, new byte[] {1, 2, 3});
        try (CompactionLease other = take(store, "collector-a")) {
            GarbageCollector dry = new GarbageCollector(
                    store, GarbageCollector.Options.retaining(RETENTION).dryRun(true), clock);
            assertThat(dry.collect().jobRecords()).isEqualTo(1);
        }
        assertThat(store.exists(RECORD)).isTrue();
    }

    private static Throwable catching(Runnable action) {
        try {
            action.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
