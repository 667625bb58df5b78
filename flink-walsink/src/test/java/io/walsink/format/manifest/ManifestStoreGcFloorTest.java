package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Versions below the garbage-collection floor may be absent (docs/format.md, "Garbage collection"):
 * the latest version is still found, whatever the hint says, and a hole at or above the floor is
 * still a gap.
 */
class ManifestStoreGcFloorTest {
    private static final UUID SHARD = UUID.fromString("11111111-2222-3333-4444-555555555555");
    private static final Duration RETENTION = Duration.ofDays(7);

    private final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final ManifestStore store = new ManifestStore(objects, SHARD);

    @Test
    void versionsBelowTheFloorMayBeMissingWhateverTheHintSays() {
        writeVersions(6);
        collectBelow(4);

        assertThat(store.readLatest()).map(ShardManifest::version).contains(6L); // hint 6
        objects.delete(store.hintKey());
        assertThat(store.readLatest()).map(ShardManifest::version).contains(6L); // from version 1
        hint(2);
        assertThat(store.readLatest()).map(ShardManifest::version).contains(6L); // hint collected
        hint(4);
        assertThat(store.readLatest()).map(ShardManifest::version).contains(6L); // 3 below the hint collected
    }

    @Test
    void aHoleAtOrAboveTheFloorIsStillAGapAndTheMessageNamesTheFloor() {
        writeVersions(6);
        collectBelow(3);
        objects.delete(store.versionKey(4));
        hint(5); // the reader looks at the version below the one it starts from

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("version 4 is missing below version 5")
                .hasMessageContaining("keeps every version from 3 on");
    }

    @Test
    void withoutAFloorAMissingFirstVersionIsStillAGap() {
        writeVersions(3);
        objects.delete(store.hintKey());
        objects.delete(store.versionKey(1));

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("version 1 is missing");
    }

    @Test
    void aFloorWhoseVersionIsMissingIsAGap() {
        writeVersions(5);
        collectBelow(3);
        objects.delete(store.versionKey(3));
        objects.delete(store.hintKey());

        assertThatThrownBy(store::readLatest)
                .isInstanceOf(ManifestGapException.class)
                .hasMessageContaining("version 1 is missing");
    }

    /**
     * A reader with a stale hint probes upwards while the collector removes versions in ascending
     * order: it sees version 3 missing and would take 2 as the latest. Reading 2 then fails, which
     * proves it probed through a collection; it starts again from the floor.
     */
    @Test
    void aReaderProbingThroughACollectionStartsAgainInsteadOfReturningAnOldVersion() {
        writeVersions(6);
        GcFloor.write(objects, SHARD, new GcFloor(5, 0, RETENTION, Instant.EPOCH));
        hint(2);
        ObjectStore racing = new ForwardingObjectStore(objects) {
            private boolean collected;

            @Override
            public Optional<ObjectMeta> head(String key) {
                if (!collected && key.equals(store.versionKey(3))) {
                    collected = true;
                    for (long v = 1; v < 5; v++) {
                        objects.delete(store.versionKey(v)); // ascending, as the collector does
                    }
                }
                return super.head(key);
            }
        };

        assertThat(new ManifestStore(racing, SHARD).readLatest())
                .map(ShardManifest::version)
                .contains(6L);
    }

    @Test
    void theMarkerRoundTripsAndRefusesGarbage() {
        GcFloor floor = new GcFloor(12, 340, RETENTION, Instant.parse("2026-01-02T03:04:05Z"));
        assertThat(GcFloor.decode(floor.encode(), "m")).isEqualTo(floor);
        assertThat(new String(floor.encode(), StandardCharsets.UTF_8))
                .isEqualTo("{\"manifest_floor\":12,\"wal_floor\":340,\"retention\":\"PT168H\","
                        + "\"collected_at\":\"2026-01-02T03:04:05Z\"}");
        assertThatThrownBy(() -> GcFloor.decode("{\"version\":3}".getBytes(StandardCharsets.UTF_8), "where"))
                .hasMessageStartingWith("where: not a garbage-collection marker");
        assertThat(store.readFloor()).isEqualTo(GcFloor.NONE);
    }

    private void collectBelow(long floor) {
        GcFloor.write(objects, SHARD, new GcFloor(floor, 0, RETENTION, Instant.EPOCH));
        for (long v = 1; v < floor; v++) {
            objects.delete(store.versionKey(v));
        }
    }

    private void hint(long version) {
        objects.put(store.hintKey(), ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8));
    }

    private void writeVersions(int n) {
        ShardManifest current = store.writeFirst(manifest());
        for (int i = 2; i <= n; i++) {
            current = store.writeNext(current, manifest());
        }
    }

    private static ShardManifest manifest() {
        return ShardManifest.builder().writerEpoch(1).currentGeneration(1).build();
    }
}
