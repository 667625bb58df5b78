package io.walsink.bench.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: each point holds at least the SSTables it names, a compaction merges
 * them all, and every point times every search.
 */
class VectorQueryReportTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aTinyRunMeasuresEachSsTableCountAndTheCompactedTable() throws Exception {
        VectorQueryReport.Settings s = new VectorQueryReport.Settings(
                400, 40, List.of(1L, 3L), 8, 2, io.walsink.format.table.MaintainedIndex.Type.IVF_FLAT, 5, 2, 7);

        List<VectorQueryReport.Point> points = VectorQueryReport.run(s, dir.resolve("t"));

        // A job's rows become an SSTable at each checkpoint that finds some: usually only the final one,
        // but Flink may complete an earlier one while the job still writes, so a point holds at least
        // the SSTables it names (once 4 for 3), never fewer.
        assertThat(points).hasSize(3);
        assertThat(points.get(0).sstables()).isGreaterThanOrEqualTo(1L);
        assertThat(points.get(1).sstables())
                .isGreaterThanOrEqualTo(Math.max(3L, points.get(0).sstables()));
        assertThat(points.get(2).sstables()).as("after compaction").isZero();
        assertThat(points).allSatisfy(p -> {
            assertThat(p.sortedMicros()).hasSize(5);
            assertThat(p.percentile(50)).isPositive();
        });
        assertThat(VectorQueryReport.render(s, points))
                .contains("after compaction", "IVF_FLAT with 2 partitions", "seed 7");
    }
}
