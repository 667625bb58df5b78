package io.walsink.bench.jobs;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.TextTable;
import java.util.List;
import java.util.Map;

/** The three tables {@link PipelineLatencyReport} prints: latencies per span, rows, checkpoints. */
public final class PipelineLatencyTables {
    private PipelineLatencyTables() {}

    public static String render(PipelineLatencyReport.Settings s, List<PipelineLatencyReport.Outcome> outcomes) {
        TextTable latency = new TextTable(
                ">C ms", "span", ">rows", ">p50 ms", ">p90 ms", ">p99 ms", ">max ms", ">p99 / C", "goal p99 <= 2 C");
        TextTable rows = new TextTable(
                ">C ms",
                ">generated",
                ">seen in src",
                ">seen in dst",
                ">repeated",
                ">unexpected",
                ">value differs",
                "every row in dst once");
        TextTable checkpoints = new TextTable(
                ">C ms", "job", ">interval ms", ">completed", ">failed", ">duration p50 ms", ">duration max ms");
        for (PipelineLatencyReport.Outcome o : outcomes) {
            for (PipelineSpans.Span span : o.spans()) {
                boolean goalRow = span.name().equals(PipelineSpans.END_TO_END);
                latency.row(
                        Figures.count(o.checkpointMs()),
                        span.name(),
                        Figures.count(span.rows()),
                        Figures.count(span.p50()),
                        Figures.count(span.p90()),
                        Figures.count(span.p99()),
                        Figures.count(span.max()),
                        Figures.ratio(span.rows() == 0 ? Double.NaN : (double) span.p99() / o.checkpointMs()),
                        !goalRow ? "" : o.goalMet() ? "met" : "MISSED");
            }
            rows.row(
                    Figures.count(o.checkpointMs()),
                    Figures.count(o.generated()),
                    Figures.count(o.seenInSrc()),
                    Figures.count(o.seenInDst()),
                    Figures.count(o.repeated()),
                    Figures.count(o.unexpected()),
                    Figures.count(o.mismatched()),
                    o.complete() ? "yes" : "NO: ROWS LOST OR WRONG");
            checkpoints(checkpoints, o.checkpointMs(), o.checkpointMs(), "writer of src", o.writerCheckpoints());
            checkpoints(
                    checkpoints,
                    o.checkpointMs(),
                    s.pipelineInterval(o.checkpointMs()),
                    "pipeline",
                    o.pipelineCheckpoints());
        }
        return String.format(
                        "Pipeline latency: INSERT INTO dst SELECT ... FROM src, both walsink; %,d rows/s for %d s per run,"
                                + " rows of the first %d s left out of the percentiles; %d buckets, parallelism %d;"
                                + " checkpoints every C in the writer, %s in the pipeline; scan.discovery-interval %d ms"
                                + " (pipeline), %d ms (observer, included in every span)%n",
                        s.rate(),
                        s.seconds(),
                        s.warmupSeconds(),
                        s.buckets(),
                        s.parallelism(),
                        s.pipelineCheckpointMs() == 0 ? "every C" : "every " + s.pipelineCheckpointMs() + " ms",
                        s.discoveryMs(),
                        s.observerDiscoveryMs())
                + latency.render() + "\n" + rows.render()
                + "\nCheckpoints (trigger to completion, as Flink counts them)\n"
                + checkpoints.render() + failures(outcomes);
    }

    /** The latest failed checkpoint's reason per run and job: a failed checkpoint delays its rows by C. */
    private static String failures(List<PipelineLatencyReport.Outcome> outcomes) {
        StringBuilder out = new StringBuilder();
        for (PipelineLatencyReport.Outcome o : outcomes) {
            for (var job : List.of(
                    Map.entry("writer of src", o.writerCheckpoints()),
                    Map.entry("pipeline", o.pipelineCheckpoints()))) {
                if (!job.getValue().latestFailure().isEmpty()) {
                    out.append(String.format(
                            "C = %d ms, %s, latest failed %s%n",
                            o.checkpointMs(), job.getKey(), job.getValue().latestFailure()));
                }
            }
        }
        return out.toString();
    }

    private static void checkpoints(
            TextTable table, long checkpointMs, long intervalMs, String job, CheckpointFigures f) {
        table.row(
                Figures.count(checkpointMs),
                job,
                Figures.count(intervalMs),
                Figures.count(f.completed()),
                Figures.count(f.failed()),
                Figures.count(f.p50Ms()),
                Figures.count(f.maxMs()));
    }
}
