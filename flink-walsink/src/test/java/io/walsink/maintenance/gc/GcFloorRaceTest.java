package io.walsink.maintenance.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The garbage-collection floor is compared-and-swapped, not overwritten. A
 * collector whose floor write races another collector's (one whose lease was taken over, or one
 * of an older release that takes no lease) notices, removes nothing from the shard, and the floor
 * it would have lowered stays where the other one put it.
 */
class GcFloorRaceTest {
    private static final String GC_RECORDS = "_walsink/gc/";

    @TempDir
    Path dir;

    @Test
    void aFloorWriteRacingAnotherCollectorsIsDetectedAndTheFloorNeverFalls() {
        try (GcFixture f = new GcFixture(dir)) {
            for (int step = 1; step <= 10; step++) {
                f.beginStep();
                f.put(step, "v" + step);
                f.publishAll();
                f.endStep();
            }
            GarbageCollector.Options options =
                    GarbageCollector.Options.retaining(Duration.ofHours(3)).keepingNewest(2);
            AtomicReference<GcFloor> theirs = new AtomicReference<>();
            // Just before our floor record lands, another collector records a higher floor.
            ObjectStore racing = new ForwardingObjectStore(f.store) {
                @Override
                public void put(String key, byte[] data) {
                    race(key, data);
                    super.put(key, data);
                }

                @Override
                public void putIfAbsent(String key, byte[] data) {
                    race(key, data);
                    super.putIfAbsent(key, data);
                }

                private void race(String key, byte[] data) {
                    if (key.startsWith(GC_RECORDS) && theirs.get() == null) {
                        GcFloor ours = GcFloor.decode(data, key);
                        GcFloor higher = new GcFloor(
                                ours.manifestFloor() + 1, ours.walFloor() + 1, ours.retention(), ours.collectedAt());
                        theirs.set(higher);
                        GcFloor.write(f.store, GcFixture.SHARD, higher);
                    }
                }
            };
            Map<String, Long> shardBefore = shardObjects(f);

            assertThatThrownBy(() -> new GarbageCollector(racing, options, f.clock).collect())
                    .isInstanceOf(FormatException.class)
                    .hasMessageContaining("another collector")
                    .hasMessageContaining(GcFixture.SHARD.toString());

            assertThat(theirs.get()).as("the race happened").isNotNull();
            assertThat(new ManifestStore(f.store, GcFixture.SHARD).readFloor())
                    .as("the other collector's floor stands; floors never fall")
                    .isEqualTo(theirs.get());
            assertThat(shardObjects(f)).as("the losing run removed nothing").isEqualTo(shardBefore);
        }
    }

    private static Map<String, Long> shardObjects(GcFixture f) {
        Map<String, Long> shard = new TreeMap<>(f.objects());
        shard.keySet().removeIf(k -> !k.startsWith("_mem_wal/"));
        return shard;
    }
}
