package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ManifestStoreTest {
    private static final UUID SHARD = UUID.fromString("11111111-2222-3333-4444-555555555555");
    private static final String DIR = "_mem_wal/11111111-2222-3333-4444-555555555555/manifest/";

    private final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final ManifestStore store = new ManifestStore(objects, SHARD);
    private ExecutorService pool;

    @AfterEach
    void stopPool() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    @Test
    void shardWithoutManifestsHasNoLatest() {
        assertThat(store.readLatest()).isEmpty();
    }

    @Test
    void keysFollowTheLayout() {
        assertThat(store.versionKey(1)).isEqualTo(DIR + "1" + "0".repeat(63) + ".binpb");
        assertThat(store.hintKey()).isEqualTo(DIR + "version_hint.json");
    }

    @Test
    void firstWriteCreatesVersionOneAndTheHint() {
        ShardManifest written = store.writeFirst(manifest(1));

        assertThat(written.version()).isEqualTo(1);
        assertThat(written.shardId()).isEqualTo(SHARD);
        assertThat(text(store.hintKey())).isEqualTo("{\"version\":1}");
        assertThat(store.readLatest()).contains(written);
    }

    @Test
    void nextVersionIsAlwaysCurrentPlusOne() {
        ShardManifest v1 = store.writeFirst(manifest(1));
        // Whatever version the proposal carries, the store writes current + 1: no gaps.
        ShardManifest v2 = store.writeNext(v1, manifest(1).withVersion(9));

        assertThat(v2.version()).isEqualTo(2);
        assertThat(store.listVersions()).containsExactly(1L, 2L);
        assertThat(text(store.hintKey())).isEqualTo("{\"version\":2}");
    }

    @Test
    void latestIsFoundWithoutAHint() {
        writeVersions(3);
        objects.delete(store.hintKey());

        assertThat(store.readLatest()).map(ShardManifest::version).contains(3L);
    }

    @Test
    void staleHintIsProbedForward() {
        writeVersions(4);
        objects.put(store.hintKey(), "{\"version\":2}".getBytes(StandardCharsets.UTF_8));

        assertThat(store.readLatest()).map(ShardManifest::version).contains(4L);
    }

    @Test
    void corruptHintFallsBackToVersionOne() {
        writeVersions(3);
        objects.put(store.hintKey(), "{\"vers".getBytes(StandardCharsets.UTF_8));

        assertThat(store.readLatest()).map(ShardManifest::version).contains(3L);
    }

    @Test
    void gapBelowTheHintIsAnError() {
        writeVersions(4);
        objects.delete(store.versionKey(3));

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("manifest gap")
                .hasMessageContaining("version 3 is missing")
                .extracting(e -> ((ManifestGapException) e).location())
                .isEqualTo("memory://" + store.versionKey(3));
    }

    @Test
    void hintPointingPastMissingVersionsIsAnError() {
        writeVersions(2);
        objects.put(store.hintKey(), "{\"version\":4}".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("version_hint.json names version 4 but it is missing")
                .hasMessageContaining("[1, 2]");
    }

    @Test
    void missingFirstVersionWithLaterOnesIsAnError() {
        writeVersions(3);
        objects.delete(store.hintKey());
        objects.delete(store.versionKey(1));

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("version 1 is missing")
                .hasMessageContaining(store.versionKey(1));
    }

    @Test
    void firstVersionCreatedBetweenHeadAndListIsReadNotReportedAsAGap() {
        InterceptingStore racing = new InterceptingStore(objects);
        ManifestStore reader = new ManifestStore(racing, SHARD);
        // a peer's first claim lands after our HEAD of version 1 missed, before our LIST
        racing.onceBeforeList(prefix -> store.writeFirst(
                ShardManifest.builder().writerEpoch(1).currentGeneration(1).build()));

        assertThat(reader.readLatest()).get().extracting(ShardManifest::version).isEqualTo(1L);
    }

    @Test
    void lostRaceIsTypedAndLeavesTheWinnerIntact() {
        ShardManifest v1 = store.writeFirst(manifest(1));
        ShardManifest winner = store.writeNext(v1, manifest(2));

        assertThatThrownBy(() -> store.writeNext(v1, manifest(3)))
                .isInstanceOf(ManifestVersionTakenException.class)
                .satisfies(e -> assertThat(((ManifestVersionTakenException) e).version())
                        .isEqualTo(2));
        assertThat(store.read(2)).isEqualTo(winner);
    }

    @Test
    void failedHintWriteIsNotFatal() {
        InterceptingStore flaky = new InterceptingStore(objects);
        flaky.beforeEveryPut(key -> {
            throw new StorageException(key, "injected", true);
        });
        ManifestStore withFlakyHint = new ManifestStore(flaky, SHARD);

        ShardManifest v1 = withFlakyHint.writeFirst(manifest(1));
        withFlakyHint.writeNext(v1, manifest(1));

        assertThat(objects.exists(store.hintKey())).isFalse();
        assertThat(withFlakyHint.readLatest()).map(ShardManifest::version).contains(2L);
    }

    @Test
    void undecodableVersionNamesTheObject() {
        writeVersions(2);
        objects.delete(store.versionKey(2));
        objects.putIfAbsent(store.versionKey(2), new byte[] {(byte) 0xff, (byte) 0xff});

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(CorruptManifestException.class)
                .hasMessageStartingWith("memory://" + store.versionKey(2));
    }

    @Test
    void contentMustMatchItsNameAndShard() {
        objects.putIfAbsent(
                store.versionKey(1), ShardManifestCodec.encode(manifest(1).withVersion(2)));
        assertThatThrownBy(() -> store.read(1))
                .isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("holds version 2, its name says 1");

        ManifestStore other = new ManifestStore(objects, UUID.randomUUID());
        objects.putIfAbsent(
                other.versionKey(1),
                ShardManifestCodec.encode(
                        manifest(1).toBuilder().version(1).shardId(SHARD).build()));
        assertThatThrownBy(() -> other.read(1))
                .isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("belongs to shard " + SHARD);
    }

    @Test
    void listingIgnoresHintAndTemporaryFiles() {
        writeVersions(3);
        objects.put(DIR + ".tmp-" + UUID.randomUUID(), new byte[1]);

        assertThat(store.listVersions()).containsExactly(1L, 2L, 3L);
    }

    @Test
    void racingWritersEachVersionHasExactlyOneWinner() throws Exception {
        int writers = 8;
        long target = 60;
        Map<Long, List<Integer>> winners = new ConcurrentHashMap<>();
        CyclicBarrier start = new CyclicBarrier(writers);
        pool = Executors.newFixedThreadPool(writers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int w = 1; w <= writers; w++) {
            int me = w;
            results.add(pool.submit(() -> {
                start.await();
                int lost = 0;
                while (true) {
                    ShardManifest latest = store.readLatest().orElse(null);
                    if (latest != null && latest.version() >= target) {
                        return lost;
                    }
                    // The writer's id travels in the manifest so the stored winner can be checked.
                    ShardManifest mine = manifest(me);
                    try {
                        ShardManifest won = latest == null ? store.writeFirst(mine) : store.writeNext(latest, mine);
                        winners.computeIfAbsent(won.version(), v -> new ArrayList<>())
                                .add(me);
                    } catch (ManifestVersionTakenException e) {
                        lost++;
                    }
                }
            }));
        }
        for (Future<Integer> r : results) {
            r.get(60, TimeUnit.SECONDS);
        }

        assertThat(store.listVersions()).hasSize((int) target).startsWith(1L).endsWith(target);
        for (long v = 1; v <= target; v++) {
            assertThat(winners.get(v)).as("winners of version %d", v).hasSize(1);
            assertThat(store.read(v).walEntryPositionLastSeen())
                    .isEqualTo((long) winners.get(v).get(0));
        }
        assertThat(ManifestInvariants.check(store)).isEmpty();
    }

    private void writeVersions(int n) {
        ShardManifest current = store.writeFirst(manifest(1));
        for (int i = 2; i <= n; i++) {
            current = store.writeNext(current, manifest(1));
        }
    }

    private static ShardManifest manifest(long writerTag) {
        return ShardManifest.builder()
                .writerEpoch(1)
                .currentGeneration(1)
                .walEntryPositionLastSeen(writerTag)
                .build();
    }

    private String text(String key) {
        return new String(objects.get(key), StandardCharsets.UTF_8);
    }
}
