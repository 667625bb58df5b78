package io.walsink.bench.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: every scan reads every key (each checks its count and fails
 * otherwise), the SQL jobs are net of their baseline, and the table shows the size and both ratios.
 */
class ScanReportTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aTinyRunScansEveryTableBothWays() throws Exception {
        ScanReport.Settings s = new ScanReport.Settings(List.of(3_000L), 2, 0.05, 2, 1);
        List<ScanReport.Outcome> outcomes = ScanReport.run(dir, s);

        assertThat(outcomes).extracting(ScanReport.Outcome::rows).containsExactly(3_000L, 3_000L, 3_000L);
        assertThat(outcomes)
                .extracting(ScanReport.Outcome::kind)
                .containsExactly(ScanReport.Kind.LANCE_CORE, ScanReport.Kind.FLINK_CEILING, ScanReport.Kind.WALSINK);
        assertThat(outcomes).allSatisfy(o -> {
            assertThat(o.nanos()).isPositive();
            assertThat(o.arrowBytes()).isPositive();
            assertThat(o.peakHeap()).isPositive();
        });
        assertThat(outcomes.get(1).baselineNanos()).isPositive();
        assertThat(outcomes.get(2).baselineNanos()).isEqualTo(outcomes.get(1).baselineNanos());
        assertThat(outcomes.get(0).baselineNanos()).isZero();
        assertThat(ScanReport.render(s, outcomes))
                .contains(
                        "lance-core scan of the base table",
                        "Flink ceiling: same job over in-memory rows",
                        "walsink SQL scan (base + SSTables)",
                        "walsink / ceiling",
                        "3,000");
    }

    @Test
    void ratesAreNetOfTheBaseline() {
        ScanReport.Outcome o = new ScanReport.Outcome(
                ScanReport.Kind.WALSINK,
                1_000,
                2_000_000,
                3_000_000_000L,
                1_000_000_000L,
                5_000_000_000L,
                2_000_000_000L,
                1,
                1);
        assertThat(o.rowsPerSecond()).isEqualTo(500);
        assertThat(o.megabytesPerSecond()).isEqualTo(1.0);
        assertThat(o.cpuSeconds()).isEqualTo(3.0);
        assertThat(new ScanReport.Outcome(ScanReport.Kind.WALSINK, 1, 1, 1, 2, 1, 1, 1, 1).rowsPerSecond())
                .isNaN();
    }
}
