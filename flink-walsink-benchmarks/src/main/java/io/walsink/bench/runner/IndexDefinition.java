package io.walsink.bench.runner;

import io.walsink.bench.read.IndexReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What maintained indexes cost a writer, and one SSTable's index build; the measuring is {@link IndexReport}'s. */
final class IndexDefinition {
    static final Definition DEFINITION = new Definition(
            "indexes",
            "sink rows/s with 0, 1 and 3 maintained indexes; one SSTable's index build, walsink's way",
            "a bounded job writing int64 keys, a short text and a vector into a new table per index set;"
                    + " then index builds on one SSTable's rows",
            "the same job with no maintained index; lance-core building the declared IVF_PQ on the same rows",
            "one job per index set (net runtime); the builds' rounds alternate walsink's and lance-core's",
            List.of(
                    new Option("--rows", "100000", "rows each sink job writes"),
                    new Option("--dimension", "768", "vector dimension"),
                    new Option("--buckets", "2", "table buckets"),
                    new Option("--sstable-rows", "10000", "rows of the SSTable the index builds are timed on"),
                    new Option("--partitions", "16", "IVF partitions of the declared IVF_PQ"),
                    new Option(
                            "--sub-vectors", "16", "PQ sub-vectors of the declared IVF_PQ (must divide the dimension)"),
                    new Option("--rounds", "3", "rounds of the index builds"),
                    new Option("--seed", "21", "vectors' seed"),
                    new Option("--dir", "", "where the tables go (empty: a new temporary folder)")),
            IndexDefinition::run);

    private IndexDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        IndexReport.Settings s = new IndexReport.Settings(
                f.positiveInt("--rows"),
                f.positiveInt("--dimension"),
                f.positiveInt("--buckets"),
                f.positiveInt("--sstable-rows"),
                f.positiveInt("--partitions"),
                f.positiveInt("--sub-vectors"),
                f.positiveInt("--rounds"),
                f.positive("--seed"));
        Path dir =
                f.get("--dir").isEmpty() ? Files.createTempDirectory("walsink-index-report") : Path.of(f.get("--dir"));
        out.println("indexes: " + s + ", tables in " + dir);
        out.println(IndexReport.report(s, dir, out::print));
        return true;
    }
}
