package io.walsink.bench.runner;

import io.walsink.bench.engine.LatencyProxy;
import io.walsink.bench.engine.RestoreReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/** Restoring many shards after a failover, one at a time and side by side; the measuring is {@link RestoreReport}'s. */
final class RestoreDefinition {
    static final Definition DEFINITION = new Definition(
            "restore",
            "time to restore a subtask's shards after a failover, on local disk and on S3 at real latency",
            "N shards with a WAL tail each, restored once untimed (so timed restores roll orphan entries"
                    + " back), then restored one after another and side by side",
            "the same restores one at a time; first opens of new shards",
            "rounds alternate the kinds; on S3 through a latency proxy adding --latency-ms to every request",
            List.of(
                    new Option(
                            "--s3-endpoint",
                            "",
                            "S3-protocol server (path-style, any credentials); empty: local disk only"),
                    new Option("--bucket", "bench", "its bucket"),
                    new Option("--shards", "32", "shards one subtask restores"),
                    new Option("--rows-per-shard", "5000", "rows in each shard's WAL tail"),
                    new Option("--rows-per-entry", "1024", "rows in each WAL entry of the tail"),
                    new Option("--parallelism", "4", "restores side by side (the sink's default I/O threads)"),
                    new Option("--latency-ms", "20-60", "latency the proxy adds per request, A-B"),
                    new Option("--rounds", "3", "timed restores of each kind"),
                    new Option("--seed", "42", "seed of the rows and of the proxy")),
            RestoreDefinition::run);

    private RestoreDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        out.print(RestoreReport.report(new RestoreReport.Settings(
                f.get("--s3-endpoint"),
                f.get("--bucket"),
                f.positiveInt("--shards"),
                f.positive("--rows-per-shard"),
                f.positiveInt("--rows-per-entry"),
                f.positiveInt("--parallelism"),
                LatencyProxy.Delay.parse(f.get("--latency-ms")),
                f.positiveInt("--rounds"),
                Long.parseLong(f.get("--seed")))));
        return true;
    }
}
