package io.walsink.bench.runner;

import io.walsink.bench.read.VectorQueryReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import io.walsink.format.table.MaintainedIndex;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** LanceDB's vector query latency as SSTables pile up, then after compaction; the measuring is {@link VectorQueryReport}'s. */
final class VectorQueryDefinition {
    static final Definition DEFINITION = new Definition(
            "vector-query",
            "LanceDB's default search latency (k = 10) over a table with a maintained vector index",
            "seeded searches in one Node process over an indexed base table with 1, 10 and 50 SSTables beside"
                    + " it, then after compaction",
            "the same searches after compaction (the base table alone)",
            "the first --warmup searches of each point are left out of the percentiles",
            List.of(
                    new Option("--base-rows", "100000", "rows merged into the base table first"),
                    new Option("--sstable-rows", "1000", "rows of each SSTable: new keys and rewrites, half each"),
                    new Option("--sstables", "1,10,50", "SSTable counts measured, ascending"),
                    new Option("--dimension", "128", "vector dimension"),
                    new Option("--partitions", "8", "IVF partitions of the maintained vector index"),
                    new Option("--type", "IVF_HNSW_SQ", "its type: IVF_HNSW_SQ, IVF_FLAT or IVF_PQ (16 sub-vectors)"),
                    new Option("--queries", "200", "timed searches per point, k = 10"),
                    new Option("--warmup", "10", "searches run first and not counted"),
                    new Option("--seed", "21", "vectors' and queries' seed"),
                    new Option("--dir", "", "where the table goes (empty: a new temporary folder)")),
            VectorQueryDefinition::run);

    private VectorQueryDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        VectorQueryReport.Settings s = new VectorQueryReport.Settings(
                f.positiveInt("--base-rows"),
                f.positiveInt("--sstable-rows"),
                f.positives("--sstables"),
                f.positiveInt("--dimension"),
                f.positiveInt("--partitions"),
                MaintainedIndex.Type.valueOf(f.get("--type").toUpperCase(Locale.ROOT)),
                f.positiveInt("--queries"),
                f.positiveInt("--warmup"),
                f.positive("--seed"));
        Path dir = f.get("--dir").isEmpty()
                ? Files.createTempDirectory("walsink-vector-query-report")
                : Path.of(f.get("--dir"));
        out.println("vector-query: " + s + ", table in " + dir);
        out.println(VectorQueryReport.render(s, VectorQueryReport.run(s, dir.resolve("table"))));
        return true;
    }
}
