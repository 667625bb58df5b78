package io.walsink.bench.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: the table is built (base rows and unmerged SSTables), the direct
 * path finds every probed key's written value (it checks), and each of the four ways reports its
 * probes and times; plus the table's arithmetic.
 */
class LookupReportTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aTinyRunMeasuresEveryPath() throws Exception {
        LookupReport.Settings s = new LookupReport.Settings(2_000, 2, 200, 2, 20, 300, 50, 7);
        List<LookupReport.Outcome> outcomes = LookupReport.run(dir.resolve("table"), s);

        assertThat(outcomes)
                .extracting(LookupReport.Outcome::path)
                .containsExactly(
                        "KeyLookup, direct", "SQL join, cache NONE", "SQL join, cache PARTIAL", "SQL join, cache FULL");
        assertThat(outcomes).extracting(LookupReport.Outcome::probes).containsExactly(20L, 20L, 300L, 300L);
        assertThat(outcomes).allSatisfy(o -> assertThat(o.nanos()).isPositive());
        assertThat(outcomes.subList(1, 4))
                .allSatisfy(o -> assertThat(o.baselineNanos()).isPositive());
        assertThat(LookupReport.render(s, outcomes)).contains("SQL join, cache FULL", "2000 keys, 2 buckets", "seed 7");
    }

    @Test
    void aJoinsRateIsNetOfItsBaselineAndHotKeysStayInTheTable() {
        assertThat(new LookupReport.Outcome("x", 1_000, 3_000_000_000L, 1_000_000_000L).lookupsPerSecond())
                .isEqualTo(500);
        assertThat(new LookupReport.Outcome("x", 1_000, 1_000_000_000L, 2_000_000_000L).lookupsPerSecond())
                .isNaN();
        LookupReport.HotKeys hot = new LookupReport.HotKeys(42, 10, 1_000);
        for (long i = 0; i < 1_000; i++) {
            assertThat(hot.map(i)).isBetween(0L, 999L).matches(k -> k % 100 == 0, "one of the 10 hot keys");
        }
    }
}
