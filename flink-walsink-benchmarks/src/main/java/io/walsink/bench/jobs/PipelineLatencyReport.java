package io.walsink.bench.jobs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 */
public final class PipelineLatencyReport {
    public record Settings(
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
    public record Outcome(
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
        public boolean complete() {
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

    public static List<Outcome> run(Path dir, Settings s) throws Exception {
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
