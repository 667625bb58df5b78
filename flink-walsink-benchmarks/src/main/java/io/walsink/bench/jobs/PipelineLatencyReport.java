package io.walsink.bench.jobs;

import io.walsink.bench.support.Flags;
import io.walsink.bench.support.LocalShardTable;
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
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;

/**
 * End-to-end latency of a walsink -> walsink streaming pipeline: a writer job puts
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
            "  --drain-seconds N            after the writer ends, how long to wait for the last rows in dst (default 120)",
            "  --pipeline-checkpoint-ms N   checkpoint interval of the pipeline job alone; 0: the same C as the writer (default 0)");
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
        DEFAULTS.put("--pipeline-checkpoint-ms", "0");
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
            int drainSeconds,
            long pipelineCheckpointMs) {
        int rows() {
            return Math.multiplyExact(rate, seconds);
        }

        /** The pipeline job's checkpoint interval when the writer's is {@code c}. */
        long pipelineInterval(long c) {
            return pipelineCheckpointMs == 0 ? c : pipelineCheckpointMs;
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
                f.positiveInt("--drain-seconds"),
                Long.parseLong(f.get("--pipeline-checkpoint-ms")));
        Path dir = Files.createTempDirectory("walsink-pipeline-latency-");
        List<Outcome> outcomes;
        try {
            outcomes = run(dir, s);
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
        System.out.println(PipelineLatencyTables.render(s, outcomes));
        // the cluster's and lance-core's threads would keep the JVM alive; the exit code says whether rows were lost
        System.exit(outcomes.stream().allMatch(Outcome::complete) ? 0 : 1);
    }

    static List<Outcome> run(Path dir, Settings s) throws Exception {
        if (s.warmupSeconds() < 0 || s.warmupSeconds() >= s.seconds()) {
            throw new IllegalArgumentException("--warmup-seconds must be at least 0 and less than --seconds");
        }
        if (s.pipelineCheckpointMs() < 0) {
            throw new IllegalArgumentException("--pipeline-checkpoint-ms must be 0 (the writer's C) or positive");
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
            StreamExecutionEnvironment writer = PipelineJobs.writer(cluster, dir.resolve("src"), s, checkpointMs);
            TableResult pipeline = PipelineJobs.pipeline(
                    cluster, dir.resolve("src"), dir.resolve("dst"), s, s.pipelineInterval(checkpointMs));
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
            // src too: the observer is cancelled next, and its read of src must not be cut short
            Duration drain = Duration.ofSeconds(s.drainSeconds());
            boolean drained = src.awaitAll(drain) && dst.awaitAll(drain);
            System.err.printf(
                    "C = %d ms: writer done, %s in src and dst%n",
                    checkpointMs, drained ? "every row" : "rows missing");
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
}
