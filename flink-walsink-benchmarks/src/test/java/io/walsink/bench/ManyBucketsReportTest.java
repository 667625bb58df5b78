package io.walsink.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.bench.Q1Pipelines.Pipeline;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The many-buckets runner end to end at a tiny size on a real local cluster: both bucket counts
 * run short and long in every round, every table equals the model, and the printed tables carry a
 * ratio per round and the summary against the goal. The steady-state arithmetic is checked on
 * made-up runs.
 */
class ManyBucketsReportTest {
    @Test
    void runsBothBucketCountsShortAndLongAndTheirTablesEqualTheModel() throws Exception {
        StringBuilder out = new StringBuilder();
        List<ManyBucketsReport.Steady> steady = ManyBucketsReport.run(
                ManyBucketsReport.flags(
                        "--few", "2",
                        "--many", "16",
                        "--short-rows", "10000",
                        "--long-rows", "30000",
                        "--keys", "4000",
                        "--rounds", "1",
                        "--warmup-rows", "0",
                        "--checkpoint-ms", "1000"),
                out::append);

        assertThat(steady).extracting(ManyBucketsReport.Steady::buckets).containsExactly(2, 16);
        assertThat(steady).allSatisfy(s -> {
            assertThat(s.shortRun().rows()).isEqualTo(10_000);
            assertThat(s.longRun().rows()).isEqualTo(30_000);
            for (Q1Report.Run r : List.of(s.shortRun(), s.longRun())) {
                assertThat(r.check().matches()).as(r.check().text()).isTrue();
                assertThat(r.check().rows()).isEqualTo(4_000);
            }
        });
        String summary = out.substring(out.lastIndexOf("\n\n") + 2);
        assertThat(summary).contains("16 / 2 buckets", ">= 0.80x", "steady rows/s", "process CPU per row");
        assertThat(out.toString())
                .contains("round 1    2 buckets       10,000 rows", "round 1   16 buckets       30,000 rows");
    }

    @Test
    void theSteadyStateIsTheDifferenceOfTheTwoRuns() {
        // 20,000 more rows in 2 s more: 10,000 rows/s; 3 CPU s more: 150,000 ns a row
        ManyBucketsReport.Steady s = new ManyBucketsReport.Steady(1, 4, run(10_000, 1.0, 2.0), run(30_000, 3.0, 5.0));
        assertThat(s.rowsPerSecond()).isEqualTo(10_000.0);
        assertThat(s.cpuNanosPerRow()).isEqualTo(150_000.0);

        ManyBucketsReport.Steady many =
                new ManyBucketsReport.Steady(1, 64, run(10_000, 2.0, 4.0), run(30_000, 6.0, 10.0));
        String summary = ManyBucketsReport.summary(List.of(s, many), 4, 64);
        assertThat(summary).contains("0.50x (0.50x-0.50x)").contains("no");
    }

    @Test
    void refusesBucketCountsAndSizesThatCannotCompare() {
        assertThatThrownBy(() -> ManyBucketsReport.run(ManyBucketsReport.flags("--few", "8", "--many", "8"), s -> {}))
                .hasMessageContaining("--few (8) must be below --many (8)");
        assertThatThrownBy(() -> ManyBucketsReport.run(
                        ManyBucketsReport.flags("--short-rows", "1000", "--long-rows", "1000"), s -> {}))
                .hasMessageContaining("--long-rows (1000) must exceed --short-rows (1000)");
    }

    private static Q1Report.Run run(long rows, double seconds, double cpuSeconds) {
        long nanos = (long) (seconds * 1e9);
        return new Q1Report.Run(
                1,
                Pipeline.DATASTREAM_WALSINK,
                rows,
                new Q1Pipelines.Timing(nanos, nanos, (long) (cpuSeconds * 1e9)),
                null,
                Map.of());
    }
}
