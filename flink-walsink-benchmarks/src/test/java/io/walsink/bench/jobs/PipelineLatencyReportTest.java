package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner at a tiny size: every generated row reaches src and dst once, with its value, each
 * span has rows and ordered percentiles, and the tables show it; a run that lost rows says so and
 * is neither complete nor within its goal. No latency is asserted: that is the report's job.
 */
class PipelineLatencyReportTest {
    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aTinyRunSeesEveryGeneratedRowInDstOnce() throws Exception {
        PipelineLatencyReport.Settings s =
                new PipelineLatencyReport.Settings(List.of(500L), 200, 3, 1, 2, 1, 50, 50, 60, 0);
        List<PipelineLatencyReport.Outcome> outcomes = PipelineLatencyReport.run(dir, s);

        assertThat(outcomes).hasSize(1);
        PipelineLatencyReport.Outcome o = outcomes.get(0);
        assertThat(o.generated()).isEqualTo(600);
        assertThat(o.seenInSrc()).isEqualTo(600);
        assertThat(o.seenInDst()).isEqualTo(600);
        assertThat(o.repeated() + o.unexpected() + o.mismatched()).isZero();
        assertThat(o.complete()).isTrue();
        assertThat(o.spans())
                .extracting(PipelineSpans.Span::name)
                .containsExactly(PipelineSpans.WRITER, PipelineSpans.PIPELINE, PipelineSpans.END_TO_END);
        assertThat(o.spans()).allSatisfy(span -> {
            // the warm-up second leaves out some rows, never all
            assertThat(span.rows()).isBetween(1, 599);
            assertThat(span.p50()).isLessThanOrEqualTo(span.p90());
            assertThat(span.p90()).isLessThanOrEqualTo(span.p99());
            assertThat(span.p99()).isLessThanOrEqualTo(span.max());
        });
        assertThat(o.endToEnd().p50()).isPositive();
        assertThat(o.writerCheckpoints().completed()).isPositive();
        assertThat(o.pipelineCheckpoints().completed()).isPositive();
        assertThat(PipelineLatencyTables.render(s, List.of(o)))
                .contains(
                        "generated -> dst (end to end)",
                        "goal p99 <= 2 C",
                        "every row in dst once",
                        "600",
                        "yes",
                        "writer of src");
    }

    @Test
    void aRunThatLostRowsSaysSoAndMissesItsGoal() {
        PipelineSpans.Span fast = PipelineSpans.Span.of(PipelineSpans.END_TO_END, new long[] {10, 20, 30});
        PipelineLatencyReport.Outcome lost = new PipelineLatencyReport.Outcome(
                1_000, 100, 100, 99, 0, 0, 0, List.of(fast), CheckpointFigures.NONE, CheckpointFigures.NONE);
        PipelineLatencyReport.Outcome whole = new PipelineLatencyReport.Outcome(
                1_000, 100, 100, 100, 0, 0, 0, List.of(fast), CheckpointFigures.NONE, CheckpointFigures.NONE);
        PipelineLatencyReport.Outcome repeated = new PipelineLatencyReport.Outcome(
                1_000, 100, 100, 100, 1, 0, 0, List.of(fast), CheckpointFigures.NONE, CheckpointFigures.NONE);

        assertThat(lost.complete()).isFalse();
        assertThat(lost.goalMet()).isFalse();
        assertThat(repeated.complete()).isFalse();
        assertThat(whole.complete()).isTrue();
        assertThat(whole.goalMet()).isTrue();
        PipelineLatencyReport.Settings s =
                new PipelineLatencyReport.Settings(List.of(1_000L), 10, 10, 1, 2, 1, 100, 100, 60, 0);
        assertThat(PipelineLatencyTables.render(s, List.of(lost))).contains("NO: ROWS LOST OR WRONG", "MISSED");
        PipelineLatencyReport.Settings split =
                new PipelineLatencyReport.Settings(List.of(1_000L), 10, 10, 1, 2, 1, 100, 100, 60, 250);
        assertThat(split.pipelineInterval(1_000)).isEqualTo(250);
        assertThat(s.pipelineInterval(1_000)).isEqualTo(1_000);
        assertThat(PipelineLatencyTables.render(split, List.of(whole))).contains("every 250 ms in the pipeline");
    }

    @Test
    void theGoalIsTwoCheckpointIntervalsAtP99() {
        long[] latencies = new long[100];
        for (int i = 0; i < 100; i++) {
            latencies[i] = 1_000 + 20L * i; // 1,000 .. 2,980 ms; p99 = 2,960
        }
        PipelineSpans.Span span = PipelineSpans.Span.of(PipelineSpans.END_TO_END, latencies);
        assertThat(new PipelineLatencyReport.Outcome(
                                1_480, 1, 1, 1, 0, 0, 0, List.of(span), CheckpointFigures.NONE, CheckpointFigures.NONE)
                        .goalMet())
                .isTrue();
        assertThat(new PipelineLatencyReport.Outcome(
                                1_479, 1, 1, 1, 0, 0, 0, List.of(span), CheckpointFigures.NONE, CheckpointFigures.NONE)
                        .goalMet())
                .isFalse();
    }

    @Test
    void aSpanSortsItsLatenciesFirst() {
        long seed = System.nanoTime();
        System.out.println("PercentilesTest seed " + seed);
        long[] shuffled = LongStream.rangeClosed(1, 200).toArray();
        Random random = new Random(seed);
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        PipelineSpans.Span span = PipelineSpans.Span.of("x", shuffled);
        assertThat(span.rows()).as("seed %s", seed).isEqualTo(200);
        assertThat(span.p50()).as("seed %s", seed).isEqualTo(100);
        assertThat(span.p90()).as("seed %s", seed).isEqualTo(180);
        assertThat(span.p99()).as("seed %s", seed).isEqualTo(198);
        assertThat(span.max()).as("seed %s", seed).isEqualTo(200);
    }
}
