package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.bench.jobs.Q1Pipelines.Pipeline;
import io.walsink.bench.runner.Definitions;
import io.walsink.bench.support.ThreadCpu;
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
                Definitions.get("many-buckets")
                        .parse(
                                "--few",
                                "2",
                                "--many",
                                "16",
                                "--short-rows",
                                "10000",
                                "--long-rows",
                                "30000",
                                "--keys",
                                "4000",
                                "--rounds",
                                "1",
                                "--warmup-rows",
                                "0",
                                "--checkpoint-ms",
                                "1000",
                                "--thread-cpu"),
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
        // --thread-cpu: every run's threads were read, and the groups' table came before the rounds'
        assertThat(steady).allSatisfy(s -> assertThat(s.longRun().threads()).isNotEmpty());
        assertThat(out.toString()).contains("16 buckets: CPU ns/row (median)", "difference ns/row");
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
    void threadGroupsAreComparedPerRowInTheSteadyState() {
        // 20,000 more rows; the writer spends 1 s more at 4 buckets (50,000 ns a row), 3 s at 64
        ManyBucketsReport.Steady few = new ManyBucketsReport.Steady(
                1,
                4,
                run(10_000, 1.0, 2.0, Map.of("writer", usage(1.0), "io", usage(0.5))),
                run(30_000, 3.0, 5.0, Map.of("writer", usage(2.0), "io", usage(1.5))));
        ManyBucketsReport.Steady many = new ManyBucketsReport.Steady(
                1,
                64,
                run(10_000, 2.0, 4.0, Map.of("writer", usage(1.0))),
                run(30_000, 6.0, 10.0, Map.of("writer", usage(4.0), "io", usage(2.5), "tokio", usage(0.2))));

        assertThat(few.cpuNanosPerRowByGroup())
                .containsEntry("writer", 50_000.0)
                .containsEntry("io", 50_000.0);
        // a group the short run lacked (a thread not yet started) counts from zero
        assertThat(many.cpuNanosPerRowByGroup())
                .containsEntry("writer", 150_000.0)
                .containsEntry("io", 125_000.0);
        String table = ManyBucketsReport.threads(List.of(few, many), 4, 64);
        // largest difference first: the writer (+100,000), then io (+75,000), then tokio (+10,000)
        assertThat(table.indexOf("writer")).isLessThan(table.indexOf("io"));
        assertThat(table.indexOf("io")).isLessThan(table.indexOf("tokio"));
        assertThat(table).contains("100,000", "75,000", "10,000");
    }

    @Test
    void refusesBucketCountsAndSizesThatCannotCompare() {
        assertThatThrownBy(() -> ManyBucketsReport.run(
                        Definitions.get("many-buckets").parse("--few", "8", "--many", "8"), s -> {}))
                .hasMessageContaining("--few (8) must be below --many (8)");
        assertThatThrownBy(() -> ManyBucketsReport.run(
                        Definitions.get("many-buckets").parse("--short-rows", "1000", "--long-rows", "1000"), s -> {}))
                .hasMessageContaining("--long-rows (1000) must exceed --short-rows (1000)");
    }

    private static ThreadCpu.Usage usage(double cpuSeconds) {
        return new ThreadCpu.Usage(cpuSeconds, 0, 0);
    }

    private static Q1Report.Run run(long rows, double seconds, double cpuSeconds) {
        return run(rows, seconds, cpuSeconds, Map.of());
    }

    private static Q1Report.Run run(
            long rows, double seconds, double cpuSeconds, Map<String, ThreadCpu.Usage> threads) {
        long nanos = (long) (seconds * 1e9);
        return new Q1Report.Run(
                1,
                Pipeline.DATASTREAM_WALSINK,
                rows,
                new Q1Pipelines.Timing(nanos, nanos, (long) (cpuSeconds * 1e9), 0),
                null,
                threads);
    }
}
