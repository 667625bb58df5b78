package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.shard.BaseVersionRefresh;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * A shard that publishes nothing for long still records a young base version in its checkpoints,
 * so a restore that must reset its rows finds that version after the base table's cleanup removed
 * the versions from its last publication (guarantees.md, "Restores across merges need the base
 * version").
 */
class BaseVersionRefreshTest {
    @TempDir
    Path dir;

    @Test
    void anIdleShardsCheckpointBuildsOnAVersionTheCleanupKeeps() {
        long seed = System.nanoTime();
        System.out.println("BaseVersionRefreshTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter idle = f.open(0);
            ShardWriter busy = f.open(1);
            f.randomOps(idle, 0, 40, 80, "g1");
            CompactionFixture.publishGeneration(List.of(idle));
            long publishedOn = idle.snapshot().baseVersion();
            f.compactor(CompactorOptions.defaults()).run();
            for (int g = 1; g <= 3; g++) { // the base table moves on without the idle shard
                f.randomOps(busy, 1, 40, 80, "busy" + g);
                CompactionFixture.publishGeneration(List.of(busy));
                f.compactor(CompactorOptions.defaults()).run();
            }
            long latest = latestVersion(f);
            assertThat(idle.snapshot().baseVersion()).isEqualTo(publishedOn);

            TableContext refreshEveryTime = new TableContext(
                    new TableLocation(f.store, f.table.uri(), Map.of()),
                    f.table,
                    WalSchemaProfile.SPEC,
                    ShardWriterConfig.builder().baseVersionMaxAge(Duration.ZERO).build(),
                    f.allocator);
            assertThat(BaseVersionRefresh.refreshStale(refreshEveryTime, List.of(idle, busy)))
                    .isEqualTo(2);
            ShardDescriptor checkpoint = idle.snapshot();
            assertThat(checkpoint.baseVersion()).isEqualTo(latest);
            assertThat(BaseVersionRefresh.refreshStale(f.context, List.of(idle, busy)))
                    .as("within the default age nothing is read")
                    .isZero();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(f.model);

            // The idle shard writes again and is merged past the checkpoint; the cleanup then removes
            // every version before the latest at the checkpoint.
            f.randomOps(idle, 0, 40, 80, "g2");
            CompactionFixture.publishGeneration(List.of(idle));
            f.compactor(CompactorOptions.defaults()).run();
            idle.close();
            busy.close();
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                base.cleanupWithPolicy(
                        CleanupPolicy.builder().withBeforeVersion(latest).build());
            }

            f.model.clear();
            f.model.putAll(atCheckpoint);
            f.restore(checkpoint).close();

            assertThat(f.read(ReadMode.LATEST).stream()
                            .filter(r -> CompactionFixture.bucketOf((Long) r.get("id")) == 0)
                            .toList())
                    .as("the idle shard as of its checkpoint, seed %s", seed)
                    .isEqualTo(f.modelRows().stream()
                            .filter(r -> CompactionFixture.bucketOf((Long) r.get("id")) == 0)
                            .toList());
        }
    }

    private static long latestVersion(CompactionFixture f) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            return base.version();
        }
    }
}
