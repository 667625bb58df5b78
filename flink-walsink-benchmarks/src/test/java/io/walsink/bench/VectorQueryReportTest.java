package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: each point holds the SSTables it names, a compaction merges them all,
 * and every point times every search.
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

        assertThat(points).extracting(VectorQueryReport.Point::sstables).containsExactly(1L, 3L, 0L);
        assertThat(points).allSatisfy(p -> {
            assertThat(p.sortedMicros()).hasSize(5);
            assertThat(p.percentile(50)).isPositive();
        });
        assertThat(VectorQueryReport.render(s, points))
                .contains("after compaction", "IVF_FLAT with 2 partitions", "seed 7");
    }
}
