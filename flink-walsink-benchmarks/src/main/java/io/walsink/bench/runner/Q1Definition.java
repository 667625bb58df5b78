package io.walsink.bench.runner;

import io.walsink.bench.jobs.Q1Report;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;
import java.util.stream.Stream;

/**
 * The q1-shaped job through walsink beside its discarding references (DataStream and SQL), the
 * goals' first three rows; the measuring is {@link Q1Report}'s.
 */
final class Q1Definition {
    /**
     * The job's and the sink's settings, shared with {@link ManyBucketsDefinition}: both run
     * {@code Q1Report}'s pipelines, which read these options.
     */
    static final List<Option> JOB_OPTIONS = List.of(
            new Option("--parallelism", "2", "source and sink parallelism"),
            new Option("--checkpoint-ms", "10000", "checkpoint interval"),
            new Option("--flush-ms", "100", "walsink flush interval"),
            new Option("--memtable-max-age-ms", "0", "walsink sink.memtable.max-age (0: the sink's default)"),
            new Option("--no-compaction", "false", "walsink with sink.compaction.enabled off"),
            new Option(
                    "--wal-appends-per-second", "0", "walsink sink.wal.max-appends-per-second; 0: the sink's default"),
            new Option("--seed", "42", "seed of the key order and values"),
            new Option("--no-verify", "false", "do not read walsink tables back"));

    static final Definition DEFINITION = new Definition(
            "q1",
            "q1-shaped job: DataStream >= 0.6x of a discarding sink behind the same keyBy (0.75x the stretch;"
                    + " one without a shuffle printed, no goal); SQL >= 0.75x of 'connector'='blackhole'",
            "upserts of q1's rows (id BIGINT key, a STRING, ten BIGINTs) into a new walsink table, on a fresh"
                    + " local cluster per run",
            "a discarding sink behind the same keyBy, one with no shuffle (DataStream); the same INSERT into"
                    + " blackhole (SQL)",
            "a child JVM with a pre-touched heap; an unreported warm-up run of every pipeline, then rounds whose"
                    + " order rotates; median (min-max) of the per-round ratios, process CPU and faults per row beside"
                    + " each; the extra CPU over the keyed reference against the floor; every walsink table read back",
            Stream.of(
                            List.of(
                                    new Option("--rows", "12000000", "upserts per run, a multiple of the parallelism"),
                                    new Option("--keys", "1000000", "distinct keys, a multiple of the parallelism"),
                                    new Option(
                                            "--rounds",
                                            "3",
                                            "rounds per group; each runs walsink and every reference once"),
                                    new Option(
                                            "--warmup-rows",
                                            "3000000",
                                            "rows of one unreported run of each pipeline first; 0: none"),
                                    new Option("--pipelines", "datastream,sql", "datastream, sql or both"),
                                    new Option("--buckets", "4", "buckets of the walsink table"),
                                    new Option(
                                            "--sql-source",
                                            "datagen",
                                            "datagen (SQL's datagen sequence, the goals' reference) or generator\n"
                                                    + "(the DataStream jobs' FLIP-27 generator as a view)"),
                                    new Option(
                                            "--final-checkpoint",
                                            "false",
                                            "keep Flink's checkpoint after tasks finish (tables then read COMMITTED,"
                                                    + " else LATEST)"),
                                    new Option(
                                            "--thread-cpu",
                                            "false",
                                            "after each timed run, its CPU seconds and minor page faults by thread"
                                                    + " group (Linux)"),
                                    new Option(
                                            "--floor-rounds",
                                            "3",
                                            "rounds of the floor on the same rows after the DataStream group, in a"
                                                    + " child JVM; 0: none"),
                                    PreTouchedJvm.HEAP),
                            Q1Definition.JOB_OPTIONS)
                    .flatMap(List::stream)
                    .toList(),
            Q1Definition::run);

    private Q1Definition() {}

    private static boolean run(Flags flags, PrintStream out) throws Exception {
        return PreTouchedJvm.run(
                DEFINITION, flags, out, Q1Report::checkOptions, (f, o) -> Q1Report.run(f, o::print).stream()
                        .allMatch(r -> r.check() == null || r.check().matches()));
    }
}
