package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compactor A passes its "already merged?" check and its last lease
 * renewal, then stalls; B takes the lease over and merges generations 2 and 3; then A's commit of
 * generation 2 runs. The base table itself must refuse it (the lease can no longer stop it):
 * otherwise generation 2's delete or upsert lands over generation 3's rows for good, since the merge
 * progress stays at 3. Generation 2 deletes one key and updates another, so it merges in two commits,
 * and A stalls before either.
 */
class CompactorStaleCommitTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(CommitHook.Step.class)
    void aCommitLeftBehindByALostLeaseCannotLandOverNewerMerges(CommitHook.Step stalledAt) {
        try (CompactionFixture f = new CompactionFixture(dir, 1L)) {
            ShardWriter writer = f.open(0);
            long[] keys = java.util.stream.LongStream.iterate(0, id -> id + 1)
                    .filter(id -> CompactionFixture.bucketOf(id) == 0)
                    .limit(2)
                    .toArray();
            f.put(writer, keys[0], "g1", 1);
            f.put(writer, keys[1], "g1", 1);
            SyncShardDriver.flushAndPublishAll(writer);
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(1);
            f.put(writer, keys[0], "g2", 2);
            f.delete(writer, keys[1]);
            SyncShardDriver.flushAndPublishAll(writer);
            f.put(writer, keys[0], "g3", 3);
            f.put(writer, keys[1], "g3", 3); // back after generation 2's delete
            SyncShardDriver.flushAndPublishAll(writer);
            List<Map<String, Object>> expected = f.modelRows();

            AtomicReference<CompactionResult> taker = new AtomicReference<>();
            CommitHook stallAfterRenewal = new CommitHook() {
                @Override
                public void beforeCommit(UUID shard, long generation, Step step) {}

                @Override
                public void leaseRenewed(UUID shard, long generation, Step step) {
                    if (generation == 2 && step == stalledAt && taker.get() == null) {
                        // A stalls past its lease here; B, whose clock is past A's expiry, takes it over.
                        taker.set(new TableCompaction(
                                        new TableLocation(f.store, f.uri, Map.of()),
                                        f.allocator,
                                        CompactorOptions.defaults(),
                                        LeaseClaimant.standalone("compactor-b"),
                                        TableCompaction.Seams.NONE.withLeaseClock(() -> System.currentTimeMillis()
                                                + Duration.ofHours(1).toMillis()))
                                .run());
                    }
                }
            };
            TableCompaction stalled = new TableCompaction(
                    new TableLocation(f.store, f.uri, Map.of()),
                    f.allocator,
                    CompactorOptions.defaults(),
                    LeaseClaimant.standalone("compactor-a"),
                    TableCompaction.Seams.NONE.withHook(stallAfterRenewal));

            Throwable end = catchThrowable(stalled::run); // A may also stop at its next renewal
            System.out.println("compactor A, stalled before " + stalledAt + ", ended with " + end);

            assertThat(taker.get()).as("B ran inside A's stall").isNotNull();
            assertThat(taker.get().mergedGenerations())
                    .as("B merged generations 2 and 3")
                    .isEqualTo(2);
            assertThat(f.merged().values()).containsOnly(3L);
            assertThat(f.baseRows()).as("base table").isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED)).as("committed read").isEqualTo(expected);
            writer.close();
        }
    }
}
