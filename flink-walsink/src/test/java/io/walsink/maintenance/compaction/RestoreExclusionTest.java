package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.MaintenanceExclusion;
import io.walsink.recovery.RestoreExclusion;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import io.walsink.storage.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink's restore that rolls back merged rows holds the table's maintenance lease for its job:
 * it takes back an entry of its own job at once, is refused by another compactor's, and releases
 * the lease when done.
 */
class RestoreExclusionTest {
    private static final int BUCKET = 0;

    @TempDir
    Path dir;

    /** A checkpoint holding generation 1 and WAL rows, then generations 2 and 3 merged past it; the writer gone. */
    private record MergedPast(ShardDescriptor checkpoint, Map<Long, Map<String, Object>> atCheckpoint) {}

    private static MergedPast mergedPast(CompactionFixture f) {
        ShardWriter writer = f.open(BUCKET);
        f.randomOps(writer, BUCKET, 40, 80, "g1");
        CompactionFixture.publishGeneration(List.of(writer));
        f.randomOps(writer, BUCKET, 20, 80, "wal");
        SyncShardDriver.appendAllPending(writer);
        ShardDescriptor checkpoint = writer.snapshot();
        Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);
        f.randomOps(writer, BUCKET, 40, 80, "g2");
        CompactionFixture.publishGeneration(List.of(writer));
        f.randomOps(writer, BUCKET, 40, 80, "g3");
        CompactionFixture.publishGeneration(List.of(writer));
        assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                .isEqualTo(3);
        writer.close();
        return new MergedPast(checkpoint, atCheckpoint);
    }

    private static ShardWriter restore(CompactionFixture f, ShardDescriptor checkpoint, LeaseClaimant claimant) {
        return ShardRestore.restore(
                f.context, checkpoint, f.placement(BUCKET), new RestoreExclusion(f.store, f.uri, claimant));
    }

    @Test
    void aRestoreTakesBackItsOwnJobsLeaseAndReleasesIt() {
        long seed = System.nanoTime();
        System.out.println("RestoreExclusionTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            MergedPast past = mergedPast(f);
            // The job's maintenance (another subtask, or a dead attempt) holds the lease.
            CompactionLease running = CompactionLease.acquire(
                    f.store,
                    f.uri,
                    LeaseClaimant.named("job maintenance", "job-1", List.of()),
                    Duration.ofMinutes(10),
                    System::currentTimeMillis);

            ShardWriter restored = restore(f, past.checkpoint(), LeaseClaimant.job("job-1", List.of()));

            assertThat(f.read(ReadMode.LATEST))
                    .as("seed %s", seed)
                    .isEqualTo(List.copyOf(past.atCheckpoint().values()));
            assertThatThrownBy(running::renew)
                    .as("the job's maintenance lost the lease to the restore")
                    .isInstanceOf(CompactionLeaseException.class);
            assertThat(CompactionLease.latest(f.store).orElseThrow().heldAt(java.time.Instant.now()))
                    .as("released after the restore")
                    .isFalse();
            restored.close();
        }
    }

    @Test
    void anotherCompactorsLeaseRefusesTheRestoreBeforeAnyRowIsReset() {
        long seed = System.nanoTime();
        System.out.println("RestoreExclusionTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            MergedPast past = mergedPast(f);
            List<Map<String, Object>> merged = f.baseRows();
            try (CompactionLease other = CompactionLease.acquire(
                    f.store, f.uri, "standalone compactor", Duration.ofMinutes(10), System::currentTimeMillis)) {
                assertThatThrownBy(() -> restore(f, past.checkpoint(), LeaseClaimant.job("job-1", List.of())))
                        .isInstanceOf(CompactionLeaseException.class)
                        .hasMessageContaining("standalone compactor");
                assertThat(f.baseRows()).as("nothing reset").isEqualTo(merged);
            }

            ShardWriter restored = restore(f, past.checkpoint(), LeaseClaimant.job("job-1", List.of()));

            assertThat(f.read(ReadMode.LATEST))
                    .as("once the lease is free, seed %s", seed)
                    .isEqualTo(List.copyOf(past.atCheckpoint().values()));
            restored.close();
        }
    }

    /**
     * Two writer subtasks of one job restore across merges at the same time: the exclusion holds
     * until both are done. Before, the second one's release (the entry on top) freed the lease while
     * the first still rolled back rows, so a standalone compactor could commit beside it.
     */
    @Test
    void twoRestoresOfOneJobKeepMaintenanceAwayUntilBothReleased() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        MaintenanceExclusion.Held first = restoring(store, 0);
        MaintenanceExclusion.Held second = restoring(store, 1);

        second.close();
        assertThatThrownBy(() -> standalone(store))
                .as("the first restore still runs")
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("restore of bucket 0");

        first.close();
        standalone(store).close();
    }

    @Test
    void aRestoreReleasedInEitherOrderFreesTheLeaseOnlyAtTheLast() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        MaintenanceExclusion.Held first = restoring(store, 0);
        MaintenanceExclusion.Held second = restoring(store, 1);
        MaintenanceExclusion.Held third = restoring(store, 2);

        first.close();
        third.close();
        assertThatThrownBy(() -> standalone(store))
                .isInstanceOf(CompactionLeaseException.class)
                .hasMessageContaining("restore of bucket 1");
        first.close(); // a second release of the same holder changes nothing
        assertThatThrownBy(() -> standalone(store)).isInstanceOf(CompactionLeaseException.class);

        second.close();
        standalone(store).close();
    }

    /** The exclusion as writer subtask {@code bucket} of job-1 takes it for its restore. */
    private static MaintenanceExclusion.Held restoring(InMemoryObjectStore store, int bucket) {
        return new RestoreExclusion(store, "table", LeaseClaimant.job("job-1", List.of()))
                .hold("restore of bucket " + bucket);
    }

    private static CompactionLease standalone(InMemoryObjectStore store) {
        return CompactionLease.acquire(
                store, "table", "standalone compactor", Duration.ofMinutes(10), System::currentTimeMillis);
    }
}
