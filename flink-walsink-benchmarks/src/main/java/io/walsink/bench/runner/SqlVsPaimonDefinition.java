package io.walsink.bench.runner;

import io.walsink.bench.jobs.PaimonComparisonReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * walsink's SQL q1 job beside the same job into Paimon's primary-key table, each against its own
 * blackhole; the measuring is {@link PaimonComparisonReport}'s.
 */
final class SqlVsPaimonDefinition {
    static final Definition DEFINITION = new Definition(
            "sql-vs-paimon",
            "SQL: walsink / blackhole >= 1.5x Paimon / blackhole on the same job; walsink's 256/4-bucket"
                    + " rows/s ratio no worse than Paimon's",
            "the q1-shaped SQL INSERT into a new walsink table and into blackhole (Flink 2, this JVM), at each"
                    + " --buckets count",
            "the same INSERT into a new Paimon primary-key table of that many buckets and into blackhole (Flink"
                    + " 1.20, the paimon-reference module, one new JVM per round)",
            "an unreported warm-up pair on each side; rounds alternate which side goes first and the order"
                    + " within each pair; rows over Flink's net runtime; Paimon's table job ends with the final"
                    + " checkpoint (Paimon commits only on one), every other without (as q1); every table compared with the model",
            List.of(
                    new Option("--rows", "12000000", "upserts per run, a multiple of the parallelism"),
                    new Option("--keys", "1000000", "distinct keys, a multiple of the parallelism"),
                    new Option("--buckets", "4,256", "bucket counts, each compared with the first"),
                    new Option("--rounds", "3", "rounds; each runs both sides' pairs once at every bucket count"),
                    new Option("--checkpoint-ms", "10000", "checkpoint interval of every job"),
                    new Option("--parallelism", "2", "source and sink parallelism of every job"),
                    new Option("--warmup-rows", "300000", "rows of each side's unreported warm-up pair; 0: none"),
                    new Option("--seed", "42", "seed of the key order and values"),
                    new Option("--paimon-heap", "3g", "-Xms = -Xmx of the Paimon JVM, as the walsink side's"),
                    new Option(
                            "--paimon-module",
                            "",
                            "folder of the built paimon-reference module; empty: the one beside this build"),
                    PreTouchedJvm.HEAP),
            SqlVsPaimonDefinition::run);

    private SqlVsPaimonDefinition() {}

    private static boolean run(Flags flags, PrintStream out) throws Exception {
        // walsink's side in a pre-touched JVM, as the Paimon JVM's heap is
        return PreTouchedJvm.run(
                DEFINITION, flags, out, f -> {}, (f, o) -> PaimonComparisonReport.run(f, o::print).stream()
                        .allMatch(PaimonComparisonReport.Round::tablesMatch));
    }
}
