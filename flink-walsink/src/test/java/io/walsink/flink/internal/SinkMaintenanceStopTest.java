package io.walsink.flink.internal;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectStore;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's end does not wait for a long compaction run. close() of a failed or
 * cancelled task stops the run before its next commit (the one under way, atomic, would still
 * land); the next run (of the next attempt) merges the rest. At the end of input a run may go on for
 * half of close()'s wait ({@link SinkMaintenanceCloseTest}).
 */
class SinkMaintenanceStopTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    private static final int GENERATIONS = 6;

    @TempDir
    Path dir;

    @Test
    void closeStopsARunningCompactionBeforeItsNextCommit() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SinkMaintenanceStopTest seed " + seed);
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.unsharded(), Map.of());
        LocalObjectStore local = new LocalObjectStore(Path.of(uri));
        try (BufferAllocator allocator = new RootAllocator()) {
            publishSmallGenerations(uri, local, allocator, new Random(seed));
            LeaseRenewalGate gated = new LeaseRenewalGate(local);
            SinkMaintenance maintenance = maintenance(uri, gated);
            maintenance.checkpointCompleted(0);
            assertThat(gated.blocked.await(30, TimeUnit.SECONDS))
                    .as("the run reached its first commit")
                    .isTrue();
            Thread closer = new Thread(
                    () -> {
                        try {
                            maintenance.close();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "closer");
            closer.start();
            awaitWaiting(closer); // close() has fenced the run and waits for it
            gated.release.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(closer.isAlive()).isFalse();
            assertThat(mergedThrough(allocator, uri))
                    .as("generations merged by the closed run (seed %s)", seed)
                    .isZero();

            assertThat(Compactor.compact(uri, null, CompactorOptions.defaults()).mergedGenerations())
                    .as("the next run merges the rest")
                    .isEqualTo(GENERATIONS);
            assertThat(mergedThrough(allocator, uri)).isEqualTo(GENERATIONS);
        }
    }

    @Test
    void aRunsTimeBudgetIsTheIntervalAtLeastTenSeconds() {
        assertThat(SinkMaintenance.runTime(0)).isEqualTo(Duration.ofSeconds(10));
        assertThat(SinkMaintenance.runTime(60_000)).isEqualTo(Duration.ofMinutes(1));
    }

    private static SinkMaintenance maintenance(String uri, ObjectStore store) {
        return new SinkMaintenance(
                uri,
                new TableLocation(store, uri, Map.of()),
                true,
                null,
                GarbageCollector.DEFAULT_CONSUMER_EXPIRATION,
                0,
                new ShardWriterMetrics(new UnregisteredMetricsGroup()),
                LeaseClaimant.job("job-1", List.of("job-1")),
                Duration.ofSeconds(60));
    }

    private static void publishSmallGenerations(
            String uri, ObjectStore store, BufferAllocator allocator, Random random) {
        MemWalTable.Shard shard = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator).shard();
        for (int g = 1; g <= GENERATIONS; g++) {
            List<RowOp> ops = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ops.add(RowOp.put(row("id", (long) random.nextInt(40), "name", "g" + g + "-" + i)));
            }
            shard.flush(ops, 4);
        }
        shard.publish();
    }

    private static long mergedThrough(BufferAllocator allocator, String uri) {
        return MergedGenerations.latest(allocator, uri, Map.of()).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private static void awaitWaiting(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(t.getName() + " never waited; state " + t.getState());
            }
            Thread.onSpinWait();
        }
    }

    /** Holds the compaction lease's first renewal (the one before the run's first commit) until released. */
    private static final class LeaseRenewalGate extends ForwardingObjectStore {
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicInteger leaseWrites = new AtomicInteger();

        LeaseRenewalGate(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public void putIfAbsent(String key, byte[] data) {
            if (key.contains("compaction-lease/") && leaseWrites.incrementAndGet() == 2) {
                blocked.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released the gate");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            super.putIfAbsent(key, data);
        }
    }
}
