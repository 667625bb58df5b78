package io.walsink.bench.runner;

import io.walsink.bench.engine.LatencyProxy;
import io.walsink.bench.engine.S3LatencyReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * The engine on local disk, on an S3-protocol server and on it through a latency proxy, then
 * replay; the WAL request counts behind operations.md's S3 costs. The measuring is
 * {@link S3LatencyReport}'s.
 */
final class S3LatencyDefinition {
    static final Definition DEFINITION = new Definition(
            "s3-latency",
            "ingest rows/s, WAL PUTs per shard and requests per GB of WAL on S3 at real latency; WAL replay there",
            "four shards of the engine on one owner thread and four I/O threads, then a quarter of the rows"
                    + " replayed by a new writer",
            "the same writes on local disk and on the server without added latency",
            "one run per store; the proxy adds --latency-ms to every request and answers --slowdown of them"
                    + " 503 SlowDown",
            List.of(
                    new Option(
                            "--s3-endpoint",
                            "",
                            "S3-protocol server (path-style, any credentials), e.g. http://localhost:9090; required"),
                    new Option("--bucket", "bench", "its bucket"),
                    new Option("--rows", "1000000", "rows written"),
                    new Option("--keys", "250000", "distinct keys"),
                    new Option("--shards", "4", "shards on the one owner thread"),
                    new Option("--flush-ms", "100", "WAL flush interval"),
                    new Option("--latency-ms", "20-60", "latency the proxy adds per request, A-B"),
                    new Option("--slowdown", "0.01", "share of requests the proxy answers 503 SlowDown"),
                    new Option("--seed", "42", "seed of the rows and of the proxy")),
            S3LatencyDefinition::run);

    private S3LatencyDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        if (f.get("--s3-endpoint").isEmpty()) {
            throw new IllegalArgumentException("--s3-endpoint is required");
        }
        out.print(S3LatencyReport.report(new S3LatencyReport.Settings(
                f.get("--s3-endpoint"),
                f.get("--bucket"),
                f.positive("--rows"),
                f.positive("--keys"),
                f.positiveInt("--shards"),
                f.positive("--flush-ms"),
                LatencyProxy.Delay.parse(f.get("--latency-ms")),
                Double.parseDouble(f.get("--slowdown")),
                Long.parseLong(f.get("--seed")))));
        return true;
    }
}
