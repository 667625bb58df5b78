package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.InMemoryObjectStore;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShardClaimerTest {
    private static final UUID SHARD = UUID.fromString("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");

    private final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final ManifestStore store = new ManifestStore(objects, SHARD);

    @Test
    void freshShardGetsVersionOneEpochOneWithItsPlacement() {
        ShardManifest claimed = new ShardClaimer(store).claim(ShardPlacement.bucket(1, 3));

        ShardManifest stored = store.read(1);
        assertThat(stored).isEqualTo(claimed);
        assertThat(stored.version()).isEqualTo(1);
        assertThat(stored.writerEpoch()).isEqualTo(1);
        assertThat(stored.currentGeneration()).isEqualTo(1);
        assertThat(stored.shardId()).isEqualTo(SHARD);
        assertThat(stored.shardSpecId()).isEqualTo(1);
        assertThat(stored.shardFieldEntries()).containsExactly(ShardFieldEntry.bucket(3));
        assertThat(HexFormat.of().formatHex(stored.shardFieldEntries().get(0).value()))
                .isEqualTo("03000000");
    }

    @Test
    void unplacedFreshShardIsByteIdenticalToLancesClaim() {
        new ShardClaimer(store).claim(ShardPlacement.none());

        assertThat(HexFormat.of().formatHex(objects.get(store.versionKey(1))))
                .isEqualTo("0801100130015a120a10" + SHARD.toString().replace("-", ""));
    }

    @Test
    void reclaimBumpsTheEpochAndKeepsTheState() {
        ShardClaimer claimer = new ShardClaimer(store);
        ShardManifest first = claimer.claim(ShardPlacement.bucket(1, 3));
        ShardManifest published = store.writeNext(
                first,
                first.toBuilder()
                        .replayAfterWalEntryPosition(5)
                        .walEntryPositionLastSeen(6)
                        .currentGeneration(2)
                        .addSstable(SsTable.of(1, "0a0b0c0d_gen_1").withPhysicalRows(10))
                        .build());

        ShardManifest second = claimer.claim(ShardPlacement.bucket(1, 3));

        assertThat(second.version()).isEqualTo(3);
        assertThat(second.writerEpoch()).isEqualTo(2);
        assertThat(second)
                .isEqualTo(published.toBuilder().version(3).writerEpoch(2).build());
        assertThat(ManifestInvariants.check(store)).isEmpty();
    }

    @Test
    void sealedShardIsRefusedAndNothingIsWritten() {
        ShardManifest first = new ShardClaimer(store).claim(ShardPlacement.none());
        store.writeNext(first, first.withStatus(ShardStatus.SEALED));

        assertThatThrownBy(() -> new ShardClaimer(store).claim(ShardPlacement.none()))
                .isInstanceOf(ShardSealedException.class)
                .hasMessageContaining(store.versionKey(2));
        assertThat(store.listVersions()).containsExactly(1L, 2L);
    }

    @Test
    void peerClaimDuringOurClaimMeansNoEpochWar() {
        new ShardClaimer(store).claim(ShardPlacement.none());
        InterceptingStore racing = new InterceptingStore(objects);
        // A peer claims epoch 2 between our read of version 1 and our write of version 2.
        racing.onceBeforePutIfAbsent(key -> new ShardClaimer(store).claim(ShardPlacement.none()));

        assertThatThrownBy(() -> new ShardClaimer(new ManifestStore(racing, SHARD)).claim(ShardPlacement.none()))
                .isInstanceOfSatisfying(EpochConflictException.class, e -> {
                    assertThat(e.attemptedEpoch()).isEqualTo(2);
                    assertThat(e.storedEpoch()).isEqualTo(2);
                });
        assertThat(store.readLatest().orElseThrow().writerEpoch()).isEqualTo(2);
        assertThat(store.listVersions()).containsExactly(1L, 2L);
    }

    @Test
    void peerOnTheFreshShardMeansNoEpochWar() {
        InterceptingStore racing = new InterceptingStore(objects);
        racing.onceBeforePutIfAbsent(key -> new ShardClaimer(store).claim(ShardPlacement.none()));

        assertThatThrownBy(() -> new ShardClaimer(new ManifestStore(racing, SHARD)).claim(ShardPlacement.none()))
                .isInstanceOf(EpochConflictException.class);
    }

    @Test
    void updateByTheOldWriterDuringClaimIsRetriedOnTop() {
        ShardManifest first = new ShardClaimer(store).claim(ShardPlacement.none());
        InterceptingStore racing = new InterceptingStore(objects);
        // The epoch-1 writer publishes an SSTable (same epoch) while we claim.
        racing.onceBeforePutIfAbsent(key -> store.writeNext(
                first,
                first.toBuilder()
                        .currentGeneration(2)
                        .addSstable(SsTable.of(1, "0e0f0a0b_gen_1"))
                        .build()));

        ShardManifest claimed = new ShardClaimer(new ManifestStore(racing, SHARD)).claim(ShardPlacement.none());

        assertThat(claimed.version()).isEqualTo(3);
        assertThat(claimed.writerEpoch()).isEqualTo(2);
        assertThat(claimed.sstables()).containsExactly(SsTable.of(1, "0e0f0a0b_gen_1"));
    }

    /** LanceDB opens a bucket's shard with the spec id and no field entries. */
    @Test
    void aShardLanceDbOpenedWithoutFieldEntriesIsClaimedForItsBucket() {
        store.writeFirst(ShardManifest.builder()
                .version(1)
                .writerEpoch(1)
                .currentGeneration(1)
                .shardId(SHARD)
                .shardSpecId(1)
                .build());

        ShardManifest claimed = new ShardClaimer(store).claim(ShardPlacement.bucket(1, 3));

        assertThat(claimed.writerEpoch()).isEqualTo(2);
        assertThat(claimed.shardSpecId()).isEqualTo(1);
        assertThat(claimed.shardFieldEntries()).as("kept as Lance wrote them").isEmpty();
        assertThatThrownBy(() -> new ShardClaimer(store).claim(ShardPlacement.bucket(2, 3)))
                .as("another spec still contradicts")
                .isInstanceOf(ShardClaimException.class);
    }

    @Test
    void placementContradictingTheStoredOneIsRefused() {
        new ShardClaimer(store).claim(ShardPlacement.bucket(1, 3));

        assertThatThrownBy(() -> new ShardClaimer(store).claim(ShardPlacement.bucket(1, 4)))
                .isInstanceOf(ShardClaimException.class)
                .hasMessageContaining("claimed for spec 1");
        // Without a placement of its own, a claimer accepts what the shard records.
        assertThat(new ShardClaimer(store).claim(ShardPlacement.none()).shardFieldEntries())
                .containsExactly(ShardFieldEntry.bucket(3));
    }

    @Test
    void concurrentClaimersGetDistinctEpochsOrBackOff() throws Exception {
        int claimers = 8;
        CyclicBarrier start = new CyclicBarrier(claimers);
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    try {
                        return new ShardClaimer(store)
                                .claim(ShardPlacement.bucket(1, 0))
                                .writerEpoch();
                    } catch (EpochConflictException backedOff) {
                        return -1L;
                    }
                }));
            }
            List<Long> epochs = new ArrayList<>();
            for (Future<Long> r : results) {
                long epoch = r.get(60, TimeUnit.SECONDS);
                if (epoch > 0) {
                    epochs.add(epoch);
                }
            }

            assertThat(epochs).isNotEmpty().doesNotHaveDuplicates();
            ShardManifest latest = store.readLatest().orElseThrow();
            assertThat(latest.writerEpoch())
                    .isEqualTo(epochs.stream().mapToLong(Long::longValue).max().orElseThrow());
            assertThat(latest.version()).isEqualTo(epochs.size());
            assertThat(ManifestInvariants.check(store)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }
}
