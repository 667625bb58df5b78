package io.walsink.bench.runner;

import io.walsink.bench.engine.EngineReport;
import io.walsink.bench.runner.Definition.Option;
import java.util.List;

/**
 * The shard engine beside lance-core's own MemWAL writer, then WAL replay: the goals' engine,
 * replay and Arrow-peak rows; the measuring is {@link EngineReport}'s.
 */
final class EngineDefinition {
    static final Definition DEFINITION = new Definition(
            "engine",
            "engine: walsink's batch puts >= 1.5x of lance-core non-durable puts, its production row path"
                    + " >= 0.7x of its batch puts; WAL replay >= 300 MB/s; Arrow peak / WAL payload during replay <= 1.3x",
            "the same seeded Arrow batches put into a fresh one-bucket table by walsink's batch puts, and row by"
                    + " row as the Flink operator writes (binary rows through its row writer); then a new writer"
                    + " replays one shard's WAL",
            "lance-core's memWalWriter, non-durable and durable; reading and decoding the same WAL entries",
            "rounds with the writers' order alternating; median (min-max) of the per-round ratios",
            List.of(
                    new Option("--rows", "1000000", "rows put per run"),
                    new Option("--keys", "100000", "distinct int64 keys drawn from"),
                    new Option("--batch-rows", "1024", "rows per Arrow batch, one put each"),
                    new Option("--rounds", "3", "rounds; each runs every writer once"),
                    new Option("--interval-ms", "100", "our flush ticker and lance-core's WAL flush interval"),
                    new Option("--entry-rows", "10240", "rows per WAL entry of the replayed shard"),
                    new Option("--seed", "42", "seed of the keys and values"),
                    new Option(
                            "--path",
                            "",
                            "where the tables go: a folder or s3://bucket/prefix (empty: a temporary folder)"),
                    new Option(
                            "--s3-endpoint",
                            "",
                            "S3-protocol endpoint; lance-core's writer also needs AWS_ENDPOINT, AWS_REGION,\n"
                                    + "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_ALLOW_HTTP=true in the environment"),
                    new Option("--s3-region", "us-east-1", "S3 region"),
                    new Option("--s3-path-style", "false", "path-style addressing (s3mock needs it)")),
            (flags, out) -> {
                out.print(EngineReport.report(flags));
                return true;
            });

    private EngineDefinition() {}
}
