package io.walsink.bench.runner;

import io.walsink.bench.read.ScanReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.LocalShardTable;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Bounded scans beside lance-core's scan and the Flink ceiling: the goals' scan rows; the
 * measuring is {@link ScanReport}'s.
 */
final class ScanDefinition {
    static final Definition DEFINITION = new Definition(
            "scan",
            "bounded scan >= 0.8x of lance-core's scan of the base table; memory bounded by the writers' budgets",
            "SELECT COUNT(*), SUM(CHAR_LENGTH(name)) in batch mode over a compacted table with a share of"
                    + " keys rewritten into unmerged SSTables, per size",
            "lance-core's scan of the base table; the Flink ceiling (the same job over in-memory rows)",
            "job times net of the same job over a one-row table; process CPU and peak heap beside them",
            List.of(
                    new Option("--rows", "1000000,10000000", "table sizes in keys, comma-separated"),
                    new Option("--buckets", "4", "buckets"),
                    new Option("--updated-share", "0.01", "share of keys rewritten into unmerged SSTables"),
                    new Option("--sstables", "4", "unmerged SSTables per shard"),
                    new Option("--parallelism", "2", "scan parallelism of the SQL job")),
            ScanDefinition::run);

    private ScanDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        ScanReport.Settings s = new ScanReport.Settings(
                f.positives("--rows"),
                f.positiveInt("--buckets"),
                Double.parseDouble(f.get("--updated-share")),
                f.positiveInt("--sstables"),
                f.positiveInt("--parallelism"));
        Path dir = Files.createTempDirectory("walsink-scan-");
        try {
            out.println(ScanReport.render(s, ScanReport.run(dir, s)));
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
        return true;
    }
}
