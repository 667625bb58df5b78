package io.walsink.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;

/**
 * End-to-end latency of a walsink -> walsink streaming pipeline (issue #19): a writer job puts
 * rows into {@code src} at a steady rate, each carrying the wall-clock time it was generated; the
 * job under test, {@code INSERT INTO dst SELECT ... FROM src}, reads {@code src} continuously and
 * writes {@code dst}, both with checkpoints every C; an observer job reads both tables continuously
 * and notes when each row shows up. All three run on one local cluster in this JVM, so one clock
 * times everything. Per C: percentiles of generated -> src, src -> dst and generated -> dst over
 * the rows generated after the warm-up, p99 against the goal of 2 C, and whether every row reached
 * dst exactly once with its value (if not, the run says so and the exit code is 1).
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx2g -cp flink-walsink-benchmarks/target/benchmarks.jar \
 *     io.walsink.bench.PipelineLatencyReport [--checkpoint-ms 1000,5000 --rate 5000 --seconds 60]
 * </pre>
 */
public final class PipelineLatencyReport {
    static final String USAGE = String.join(
            "\n",
            "Usage: PipelineLatencyReport [options]",
            "  --checkpoint-ms LIST         checkpoint intervals C of writer and pipeline, one run each, repeats allowed",
            "                               (default 1000,5000)",
            "  --rate N                     rows generated per second (default 5000)",
            "  --seconds N                  seconds of generation per run (default 60)",
            "  --warmup-seconds N           rows generated in the first N seconds are left out of the percentiles (default 10)",
            "  --buckets N                  buckets of src and dst (default 2)",
            "  --parallelism N              parallelism of the writer and the pipeline job (default 1)",
            "  --discovery-ms N             scan.discovery-interval of the pipeline's read of src (default 100)",
            "  --observer-discovery-ms N    scan.discovery-interval of the observer's reads (default 100)",
            "  --drain-seconds N            after the writer ends, how long to wait for the last rows in dst (default 120)");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("--checkpoint-ms", "1000,5000");
        DEFAULTS.put("--rate", "5000");
        DEFAULTS.put("--seconds", "60");
        DEFAULTS.put("--warmup-seconds", "10");
        DEFAULTS.put("--buckets", "2");
        DEFAULTS.put("--parallelism", "1");
        DEFAULTS.put("--discovery-ms", "100");
        DEFAULTS.put("--observer-discovery-ms", "100");
        DEFAULTS.put("--drain-seconds", "120");
    }

    record Settings(
            List<Long> checkpointMs,
            int rate,
            int seconds,
            int warmupSeconds,
            int buckets,
            int parallelism,
            long discoveryMs,
            long observerDiscoveryMs,
            int drainSeconds) {
        int rows() {
            return Math.multiplyExact(rate, seconds);
        }
    }

    /** One run at checkpoint interval {@code checkpointMs}: what arrived where, and the latencies. */
    record Outcome(
            long checkpointMs,
            int generated,
            long seenInSrc,
            long seenInDst,
            long repeated,
            long unexpected,
            long mismatched,
            List<PipelineSpans.Span> spans,
            CheckpointFigures writerCheckpoints,
            CheckpointFigures pipelineCheckpoints) {
        /** Every generated row in src and in dst, once each, with the value it was generated with. */
        boolean complete() {
            return seenInSrc == generated
                    && seenInDst == generated
                    && repeated == 0
                    && unexpected == 0
                    && mismatched == 0;
        }

        PipelineSpans.Span endToEnd() {
            return spans.stream()
                    .filter(s -> s.name().equals(PipelineSpans.END_TO_END))
                    .findFirst()
                    .orElseThrow();
        }

        /** p99 of end to end within twice the checkpoint interval, with every row there. */
        boolean goalMet() {
            return complete() && endToEnd().rows() > 0 && endToEnd().p99() <= 2 * checkpointMs;
        }
    }

    private PipelineLatencyReport() {}

    public static void main(String[] argv) throws Exception {
        Optional<Flags> parsed = Flags.forMain(argv, DEFAULTS, USAGE);
        if (parsed.isEmpty()) {
            return;
        }
        Flags f = parsed.get();
        Settings s = new Settings(
                f.positives("--checkpoint-ms"),
                f.positiveInt("--rate"),
                f.positiveInt("--seconds"),
                Integer.parseInt(f.get("--warmup-seconds")),
                f.positiveInt("--buckets"),
                f.positiveInt("--parallelism"),
                f.positive("--discovery-ms"),
                f.positive("--observer-discovery-ms"),
                f.positiveInt("--drain-seconds"));
        Path dir = Files.createTempDirectory("walsink-pipeline-latency-");
        List<Outcome> outcomes;
        try {
            outcomes = run(dir, s);
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
        System.out.println(render(s, outcomes));
        // the cluster's and lance-core's threads would keep the JVM alive; the exit code says whether rows were lost
        System.exit(outcomes.stream().allMatch(Outcome::complete) ? 0 : 1);
    }

    static List<Outcome> run(Path dir, Settings s) throws Exception {
        if (s.warmupSeconds() < 0 || s.warmupSeconds() >= s.seconds()) {
            throw new IllegalArgumentException("--warmup-seconds must be at least 0 and less than --seconds");
        }
        List<Outcome> outcomes = new ArrayList<>();
        // the writer and the pipeline at their parallelism, the observer in one slot, one to spare
        try (InProcessCluster cluster = InProcessCluster.start(2 * s.parallelism() + 2)) {
            for (int i = 0; i < s.checkpointMs().size(); i++) {
                long c = s.checkpointMs().get(i);
                outcomes.add(runOnce(cluster, dir.resolve("run" + i + "-c" + c), s, c));
            }
        }
        return outcomes;
    }

    private static Outcome runOnce(InProcessCluster cluster, Path dir, Settings s, long checkpointMs) throws Exception {
        String name = dir.toString();
        Arrivals src = Arrivals.open(name + "/src", s.rows());
        Arrivals dst = Arrivals.open(name + "/dst", s.rows());
        try {
            var writer = PipelineJobs.writer(cluster, dir.resolve("src"), s, checkpointMs);
            TableResult pipeline =
                    PipelineJobs.pipeline(cluster, dir.resolve("src"), dir.resolve("dst"), s, checkpointMs);
            JobClient observer = PipelineJobs.observer(
                    cluster,
                    dir.resolve("src"),
                    dir.resolve("dst"),
                    s.observerDiscoveryMs(),
                    name + "/src",
                    name + "/dst");
            JobClient pipelineJob = pipeline.getJobClient().orElseThrow();
            InProcessCluster.awaitRunning(pipelineJob, Duration.ofMinutes(1));
            InProcessCluster.awaitRunning(observer, Duration.ofMinutes(1));
            System.err.printf("C = %d ms: generating %,d rows at %,d rows/s%n", checkpointMs, s.rows(), s.rate());
            JobID writerJob = writer.execute("src writer").getJobID();
            boolean drained = dst.awaitAll(Duration.ofSeconds(s.drainSeconds()));
            System.err.printf(
                    "C = %d ms: writer done, %s in dst%n", checkpointMs, drained ? "every row" : "rows missing");
            CheckpointFigures pipelineCheckpoints = cluster.checkpoints(pipelineJob.getJobID());
            pipelineJob.cancel().get();
            observer.cancel().get();
            long warmupEnd = PipelineSpans.firstCreatedMs(src, dst) + s.warmupSeconds() * 1000L;
            return new Outcome(
                    checkpointMs,
                    s.rows(),
                    src.seen(),
                    dst.seen(),
                    src.repeated() + dst.repeated(),
                    src.unexpected() + dst.unexpected(),
                    PipelineSpans.mismatched(src, dst),
                    PipelineSpans.of(src, dst, warmupEnd),
                    cluster.checkpoints(writerJob),
                    pipelineCheckpoints);
        } finally {
            Arrivals.close(name + "/src");
            Arrivals.close(name + "/dst");
        }
    }

    static String render(Settings s, List<Outcome> outcomes) {
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
        TextTable checkpoints =
                new TextTable(">C ms", "job", ">completed", ">failed", ">duration p50 ms", ">duration max ms");
        for (Outcome o : outcomes) {
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
            checkpoints(checkpoints, o.checkpointMs(), "writer of src", o.writerCheckpoints());
            checkpoints(checkpoints, o.checkpointMs(), "pipeline", o.pipelineCheckpoints());
        }
        return String.format(
                        "Pipeline latency: INSERT INTO dst SELECT ... FROM src, both walsink; %,d rows/s for %d s per run,"
                                + " rows of the first %d s left out of the percentiles; %d buckets, parallelism %d;"
                                + " checkpoints every C in the writer and the pipeline; scan.discovery-interval %d ms"
                                + " (pipeline), %d ms (observer, included in every span)%n",
                        s.rate(),
                        s.seconds(),
                        s.warmupSeconds(),
                        s.buckets(),
                        s.parallelism(),
                        s.discoveryMs(),
                        s.observerDiscoveryMs())
                + latency.render() + "\n" + rows.render()
                + "\nCheckpoints (trigger to completion, as Flink counts them)\n"
                + checkpoints.render() + failures(outcomes);
    }

    /** The latest failed checkpoint's reason per run and job: a failed checkpoint delays its rows by C. */
    private static String failures(List<Outcome> outcomes) {
        StringBuilder out = new StringBuilder();
        for (Outcome o : outcomes) {
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

    private static void checkpoints(TextTable table, long checkpointMs, String job, CheckpointFigures f) {
        table.row(
                Figures.count(checkpointMs),
                job,
                Figures.count(f.completed()),
                Figures.count(f.failed()),
                Figures.count(f.p50Ms()),
                Figures.count(f.maxMs()));
    }
}
