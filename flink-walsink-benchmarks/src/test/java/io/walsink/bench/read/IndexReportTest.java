package io.walsink.bench.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndexes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: each sink job writes a table declaring its index set, both index
 * builds are timed every round, and the report names what was measured.
 */
class IndexReportTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aTinyRunMeasuresEverySinkAndBothBuilds() throws Exception {
        IndexReport.Settings s = new IndexReport.Settings(600, 8, 2, 600, 2, 2, 2, 5);
        List<IndexReport.SinkRun> sinks = new java.util.ArrayList<>();
        int i = 0;
        for (var indexes : s.indexSets()) {
            Path table = dir.resolve("sink-" + i++);
            sinks.add(IndexReport.sink(s, indexes, table));
            assertThat(MaintainedIndexes.of(LanceTables.open(table.toString(), Map.of())))
                    .containsExactlyInAnyOrderElementsOf(indexes);
        }
        IndexReport.BuildRun builds = IndexReport.builds(s, dir.resolve("builds"));

        assertThat(sinks).extracting(IndexReport.SinkRun::rows).containsOnly(600L);
        assertThat(sinks).allSatisfy(run -> assertThat(run.nanos()).isPositive());
        assertThat(builds.walsinkNanos()).hasSize(2).allSatisfy(n -> assertThat(n)
                .isPositive());
        assertThat(builds.lanceCoreNanos()).hasSize(2).allSatisfy(n -> assertThat(n)
                .isPositive());
        assertThat(IndexReport.render(s, sinks, builds))
                .contains(
                        "none", "emb_idx IVF_PQ, id_idx BTREE, text_idx INVERTED", "IVF_FLAT, one partition", "seed 5");
    }
}
