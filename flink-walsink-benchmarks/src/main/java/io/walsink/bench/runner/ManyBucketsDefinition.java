package io.walsink.bench.runner;

import io.walsink.bench.jobs.ManyBucketsReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;
import java.util.stream.Stream;

/**
 * Many buckets on the same writer subtasks against few: the goals' 256-against-4 row; the
 * measuring is {@link ManyBucketsReport}'s.
 */
final class ManyBucketsDefinition {
    static final Definition DEFINITION = new Definition(
            "many-buckets",
            "256 buckets on 2 writer subtasks against 4, steady rows/s >= 0.8x",
            "the q1-shaped DataStream job into a table of --many buckets, a short and a long run per round",
            "the same job into a table of --few buckets, in the same rounds",
            "a child JVM with a pre-touched heap; steady state = rows between the short and the long run over the"
                    + " time between them, so one-off costs cancel, process CPU and faults per row beside the ratio;"
                    + " which count goes first alternates; every table read back",
            Stream.of(
                            List.of(
                                    new Option("--few", "4", "buckets of the reference table"),
                                    new Option("--many", "256", "buckets of the measured table"),
                                    new Option(
                                            "--short-rows",
                                            "12000000",
                                            "upserts of the short run, a multiple of the parallelism"),
                                    new Option(
                                            "--long-rows",
                                            "36000000",
                                            "upserts of the long run, more than the short one"),
                                    new Option("--keys", "500000", "distinct keys, a multiple of the parallelism"),
                                    new Option("--rounds", "3", "rounds; each runs both bucket counts short and long"),
                                    new Option(
                                            "--warmup-rows",
                                            "6000000",
                                            "rows of one unreported run of each bucket count first; 0: none"),
                                    new Option(
                                            "--thread-cpu",
                                            "false",
                                            "also CPU ns per row by thread group, steady state (Linux /proc)"),
                                    PreTouchedJvm.HEAP),
                            Q1Definition.JOB_OPTIONS)
                    .flatMap(List::stream)
                    .toList(),
            ManyBucketsDefinition::run);

    private ManyBucketsDefinition() {}

    private static boolean run(Flags flags, PrintStream out) throws Exception {
        return PreTouchedJvm.run(
                DEFINITION,
                flags,
                out,
                ManyBucketsReport::checkOptions,
                (f, o) -> ManyBucketsReport.run(f, o::print).stream()
                        .flatMap(s -> List.of(s.shortRun(), s.longRun()).stream())
                        .allMatch(r -> r.check() == null || r.check().matches()));
    }
}
