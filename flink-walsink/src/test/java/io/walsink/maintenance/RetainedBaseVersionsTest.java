package io.walsink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.table.LanceTables;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Version;

/**
 * The sink's base table cleanup keeps every version that was the latest within the retention, by
 * when it was superseded, not by when it was written: a checkpoint taken a moment ago may build on
 * a version written long before.
 */
class RetainedBaseVersionsTest {
    @TempDir
    Path dir;

    @Test
    void theVersionThatWasLatestAtTheCutSurvivesCleanupAndOlderOnesGo() {
        long seed = System.nanoTime();
        System.out.println("RetainedBaseVersionsTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(0);
            for (int g = 1; g <= 3; g++) {
                f.randomOps(writer, 0, 30, 80, "g" + g);
                CompactionFixture.publishGeneration(List.of(writer));
                f.compactor(CompactorOptions.defaults()).run();
            }
            writer.close();
            List<Version> versions;
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                versions = base.listVersions();
            }
            Version latest = versions.get(versions.size() - 1);
            Version previous = versions.get(versions.size() - 2);
            long written = millis(previous);
            // A cut after the previous version was written and before it was superseded: lance-core's
            // own age cut at that moment would remove it.
            long cut = written + Math.max(0, (millis(latest) - written) / 2);
            Duration retention = Duration.ofHours(1);
            long now = cut + retention.toMillis();

            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                long oldest = RetainedBaseVersions.oldestRetained(base, retention, now);
                assertThat(oldest)
                        .as("the version that was the latest at the cut")
                        .isEqualTo(millis(latest) > cut ? previous.getId() : latest.getId());
                base.cleanupWithPolicy(
                        RetainedBaseVersions.cleanupPolicy(base, retention, now, java.util.OptionalLong.empty()));
                try (Dataset kept = base.checkoutVersion(oldest)) {
                    assertThat(kept.version()).isEqualTo(oldest);
                }
                assertThatThrownBy(() -> base.checkoutVersion(oldest - 1).close())
                        .as("the version superseded before the cut is removed");
            }
        }
    }

    /** A live consumer's snapshot keeps its base version through the compactor's cleanup, whatever the retention. */
    @Test
    void theBaseVersionALiveConsumerPinsSurvivesCleanup() {
        long seed = System.nanoTime();
        System.out.println("RetainedBaseVersionsTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(0);
            f.randomOps(writer, 0, 30, 80, "g1");
            CompactionFixture.publishGeneration(List.of(writer));
            f.compactor(CompactorOptions.defaults()).run();
            long pinned;
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                pinned = base.version();
            }
            ConsumerRecords.write(
                    f.store,
                    new ConsumerRecord(
                            "etl", "bucket-0", 0, Instant.now(), java.util.OptionalLong.of(pinned), List.of()));
            f.randomOps(writer, 0, 30, 80, "g2");
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            f.compactor(CompactorOptions.defaults().withCleanupRetention(Duration.ZERO))
                    .run();
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThat(base.version())
                        .as("the second generation was merged")
                        .isGreaterThan(pinned);
                try (Dataset kept = base.checkoutVersion(pinned)) {
                    assertThat(kept.version()).isEqualTo(pinned);
                }
                assertThatThrownBy(() -> base.checkoutVersion(pinned - 1).close())
                        .as("older versions go");
            }
        }
    }

    private static long millis(Version v) {
        return v.getDataTime().toInstant().toEpochMilli();
    }
}
