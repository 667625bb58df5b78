package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.LanceTables;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.maintenance.gc.GcSummary;
import io.walsink.read.ReadMode;
import io.walsink.shard.ShardWriter;
import io.walsink.testing.LanceRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Ref;
import org.lance.Version;

/**
 * Tags and branches on the base table, which LanceDB and Lance users create as a habit: the
 * compactor's cleanup keeps the versions they name and still removes the other old versions, and
 * garbage collection leaves them alone (docs/operations.md, "Tags and branches on the base table").
 */
class BaseTableTagsTest {
    private static final String TAG = "release";
    private static final String BRANCH = "experiment";

    @TempDir
    Path dir;

    @Test
    void aTaggedVersionAndABranchSurviveCleanupAndOtherOldVersionsGo() {
        long seed = System.nanoTime();
        System.out.println("BaseTableTagsTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            ShardWriter writer = f.open(0);
            for (int g = 1; g <= 4; g++) {
                f.randomOps(writer, 0, 30, 80, "g" + g);
                CompactionFixture.publishGeneration(List.of(writer));
                f.compactor(CompactorOptions.defaults()).run();
            }
            long branchedFrom;
            long untagged;
            long tagged;
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                List<Version> versions = base.listVersions();
                assertThat(versions).as("versions to pick from, seed %s", seed).hasSizeGreaterThanOrEqualTo(5);
                // All three older than the latest: the cleanup below would remove each of them.
                branchedFrom = versions.get(1).getId();
                untagged = versions.get(2).getId();
                tagged = versions.get(versions.size() - 2).getId();
                base.tags().create(TAG, tagged);
                base.createBranch(BRANCH, Ref.ofMain(branchedFrom)).close();
            }
            List<Map<String, Object>> atTag = rowsAt(f, tagged);
            List<Map<String, Object>> atBranch = rowsAt(f, branchedFrom);

            f.randomOps(writer, 0, 30, 80, "g5");
            CompactionFixture.publishGeneration(List.of(writer));
            writer.close();
            CompactionResult result = f.compactor(CompactorOptions.defaults().withCleanupRetention(Duration.ZERO))
                    .run();
            GcSummary collected = new GarbageCollector(
                            f.store,
                            GarbageCollector.Options.retaining(Duration.ZERO).keepingNewest(1))
                    .collect();

            assertThat(result.cleanedUpVersions())
                    .as("the cleanup ran and removed old versions, seed %s", seed)
                    .hasValueSatisfying(n -> assertThat(n).isPositive());
            assertThat(collected.shards())
                    .as("the collector went over the shard")
                    .isPositive();
            try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
                assertThatThrownBy(() -> base.checkoutVersion(untagged).close())
                        .as("an untagged old version is removed, seed %s", seed);
                try (Dataset atTagNow = base.checkoutTag(TAG)) {
                    assertThat(atTagNow.version()).isEqualTo(tagged);
                    assertThat(CompactionFixture.byId(LanceRows.scan(atTagNow)))
                            .as("the tagged version reads as before, seed %s", seed)
                            .isEqualTo(atTag);
                }
                assertThat(base.tags().getVersion(TAG)).isEqualTo(tagged);
                try (Dataset branch = base.checkout(Ref.ofBranch(BRANCH))) {
                    assertThat(CompactionFixture.byId(LanceRows.scan(branch)))
                            .as("the branch reads as when it was made, seed %s", seed)
                            .isEqualTo(atBranch);
                }
            }
            assertThat(f.read(ReadMode.LATEST)).as("the table, seed %s", seed).isEqualTo(f.modelRows());
        }
    }

    private static List<Map<String, Object>> rowsAt(CompactionFixture f, long version) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of());
                Dataset at = base.checkoutVersion(version)) {
            return CompactionFixture.byId(LanceRows.scan(at));
        }
    }
}
