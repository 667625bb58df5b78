package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.RetainedBaseVersions;
import io.walsink.shard.BaseVersionRefresh;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Version;

/**
 * The sink's base table cleanup keeps every version that was the latest within the retention plus
 * the refresh age of a checkpoint's base version, by when it was superseded, not by when it was
 * written: a checkpoint taken a moment ago may build on a version written long before.
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
            long now = cut + RetainedBaseVersions.kept(retention).toMillis();

            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                long oldest = RetainedBaseVersions.oldestRetained(base, RetainedBaseVersions.kept(retention), now);
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

    /**
     * A checkpoint younger than the retention restores across merges after the cleanup, though the
     * base version its idle shard records stopped being the latest before the retention's cut: its
     * snapshot did not read a newer one, the recorded one being younger than {@link
     * io.walsink.shard.ShardWriterConfig#baseVersionMaxAge()}. The cleanup runs on a simulated clock
     * set so that the retention's cut falls after that version was superseded and before the
     * checkpoint was taken.
     */
    @Test
    void aCheckpointWithinTheRetentionRestoresThoughItsBaseVersionWasSupersededBeforeTheCut() {
        long seed = System.nanoTime();
        System.out.println("RetainedBaseVersionsTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            Duration retention = Duration.ofHours(1); // the sink's default, whose refresh age the fixture runs with
            assertThat(ShardWriterConfig.baseVersionMaxAge(retention))
                    .isEqualTo(f.context.config().baseVersionMaxAge());
            ShardWriter idle = f.open(0);
            f.randomOps(idle, 0, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(idle));
            long recorded = idle.snapshot().baseVersion();
            f.compactor(CompactorOptions.defaults()).run(); // supersedes the recorded version

            Instant taken = Instant.now();
            assertThat(BaseVersionRefresh.refreshStale(f.context, List.of(idle)))
                    .as("the recorded version is younger than the refresh age: the snapshot keeps it")
                    .isZero();
            ShardDescriptor checkpoint = idle.snapshot();
            assertThat(checkpoint.baseVersion()).isEqualTo(recorded);
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);

            // The shard writes again and is merged past the checkpoint: its restore resets its rows
            // to the recorded version.
            f.randomOps(idle, 0, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(idle));
            f.compactor(CompactorOptions.defaults()).run();
            idle.close();

            Instant superseded;
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                superseded = base.listVersions().stream()
                        .filter(v -> v.getId() == recorded + 1)
                        .findFirst()
                        .orElseThrow()
                        .getDataTime()
                        .toInstant();
            }
            // The cut at the millisecond the recorded version was superseded: the checkpoint, taken
            // after that, is younger than the retention.
            long cut = superseded.toEpochMilli();
            assertThat(Instant.ofEpochMilli(cut))
                    .as("the version was superseded before the checkpoint was taken")
                    .isBefore(taken);
            long now = cut + retention.toMillis();
            CompactionResult cleaned = cleanupAt(f, retention, now);
            assertThat(cleaned.cleanedUpVersions()).as("the cleanup ran").isPresent();

            f.model.clear();
            f.model.putAll(atCheckpoint);
            f.restore(checkpoint).close();
            assertThat(f.read(ReadMode.LATEST).stream()
                            .filter(r -> CompactionFixture.bucketOf((Long) r.get("id")) == 0)
                            .toList())
                    .as("the shard as of its checkpoint, seed %s", seed)
                    .isEqualTo(f.modelRows());

            // Once the checkpoint is older than the retention and the refresh age, the version goes.
            Duration kept = retention.plus(f.context.config().baseVersionMaxAge());
            long later = Instant.now().plus(kept).plusSeconds(60).toEpochMilli();
            assertThat(cleanupAt(f, retention, later).cleanedUpVersions())
                    .hasValueSatisfying(n -> assertThat(n).isPositive());
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThatThrownBy(() -> base.checkoutVersion(recorded).close())
                        .as("the recorded version is removed once no retained checkpoint can need it");
            }
        }
    }

    /** A compactor run with the sink's cleanup, its clock at {@code nowMillis}. */
    private static CompactionResult cleanupAt(CompactionFixture f, Duration retention, long nowMillis) {
        return new TableCompaction(
                        new TableLocation(f.store, f.uri, Map.of()),
                        f.allocator,
                        CompactorOptions.defaults().withCleanupRetention(retention),
                        LeaseClaimant.standalone("compactor"),
                        TableCompaction.Seams.NONE.withLeaseClock(() -> nowMillis))
                .run();
    }

    private static long millis(Version v) {
        return v.getDataTime().toInstant().toEpochMilli();
    }
}
