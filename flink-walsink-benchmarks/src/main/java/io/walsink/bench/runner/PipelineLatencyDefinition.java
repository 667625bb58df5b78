package io.walsink.bench.runner;

import io.walsink.bench.jobs.PipelineLatencyReport;
import io.walsink.bench.jobs.PipelineLatencyTables;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.LocalShardTable;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * End-to-end latency of a walsink -> walsink pipeline: the goals' pipeline latency row; the
 * measuring is {@link PipelineLatencyReport}'s.
 */
final class PipelineLatencyDefinition {
    static final Definition DEFINITION = new Definition(
            "pipeline-latency",
            "walsink -> walsink pipeline, end-to-end p99 latency <= 2 checkpoint intervals",
            "a rate-limited writer into src and the job under test (INSERT INTO dst SELECT ... FROM src),"
                    + " both checkpointing every C, and an observer of both tables, on one MiniCluster",
            "none: a bound in checkpoint intervals",
            "one run per interval; rows of the first --warmup-seconds left out of the percentiles; every"
                    + " generated row must reach dst once with its value",
            List.of(
                    new Option(
                            "--checkpoint-ms",
                            "1000,5000",
                            "checkpoint intervals C of writer and pipeline, one run each, repeats allowed"),
                    new Option("--rate", "5000", "rows generated per second"),
                    new Option("--seconds", "60", "seconds of generation per run"),
                    new Option("--warmup-seconds", "10", "rows of the first N seconds left out of the percentiles"),
                    new Option("--buckets", "2", "buckets of src and dst"),
                    new Option("--parallelism", "1", "parallelism of the writer and the pipeline job"),
                    new Option("--discovery-ms", "100", "scan.discovery-interval of the pipeline's read of src"),
                    new Option("--observer-discovery-ms", "100", "scan.discovery-interval of the observer's reads"),
                    new Option("--drain-seconds", "120", "after the writer ends, how long to wait for the last rows"),
                    new Option(
                            "--pipeline-checkpoint-ms",
                            "0",
                            "checkpoint interval of the pipeline job alone; 0: the writer's C")),
            PipelineLatencyDefinition::run);

    private PipelineLatencyDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        PipelineLatencyReport.Settings s = new PipelineLatencyReport.Settings(
                f.positives("--checkpoint-ms"),
                f.positiveInt("--rate"),
                f.positiveInt("--seconds"),
                Integer.parseInt(f.get("--warmup-seconds")),
                f.positiveInt("--buckets"),
                f.positiveInt("--parallelism"),
                f.positive("--discovery-ms"),
                f.positive("--observer-discovery-ms"),
                f.positiveInt("--drain-seconds"),
                Long.parseLong(f.get("--pipeline-checkpoint-ms")));
        Path dir = Files.createTempDirectory("walsink-pipeline-latency-");
        List<PipelineLatencyReport.Outcome> outcomes;
        try {
            outcomes = PipelineLatencyReport.run(dir, s);
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
        out.println(PipelineLatencyTables.render(s, outcomes));
        return outcomes.stream().allMatch(PipelineLatencyReport.Outcome::complete);
    }
}
