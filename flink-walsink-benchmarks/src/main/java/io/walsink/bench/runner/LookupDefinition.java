package io.walsink.bench.runner;

import io.walsink.bench.read.LookupReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import io.walsink.bench.support.LocalShardTable;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Lookups/s through {@code KeyLookup} and SQL lookup joins with each cache; the measuring is {@link LookupReport}'s. */
final class LookupDefinition {
    static final Definition DEFINITION = new Definition(
            "lookups",
            "lookups/s of KeyLookup and of SQL lookup joins with lookup.cache NONE, PARTIAL and FULL",
            "probes of --hot-keys seeded keys against a compacted table with keys rewritten into unmerged"
                    + " SSTables",
            "a baseline job sending the same probes to the same sink without the join",
            "a join's rate is net of the baseline; the direct path checks every row against its written value",
            List.of(
                    new Option("--rows", "1000000", "keys in the table"),
                    new Option("--buckets", "4", "buckets"),
                    new Option("--updates", "100000", "keys rewritten into unmerged SSTables"),
                    new Option("--sstables", "4", "unmerged SSTables per shard"),
                    new Option("--probes-uncached", "2000", "probes of KeyLookup and of the join without cache"),
                    new Option("--probes-cached", "200000", "probes of the joins with PARTIAL and FULL cache"),
                    new Option("--hot-keys", "10000", "distinct keys probed"),
                    new Option("--seed", "42", "seed of the probe keys")),
            LookupDefinition::run);

    private LookupDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        LookupReport.Settings s = new LookupReport.Settings(
                f.positive("--rows"),
                f.positiveInt("--buckets"),
                f.positive("--updates"),
                f.positiveInt("--sstables"),
                f.positive("--probes-uncached"),
                f.positive("--probes-cached"),
                f.positive("--hot-keys"),
                Long.parseLong(f.get("--seed")));
        Path dir = Files.createTempDirectory("walsink-lookup-");
        try {
            out.println(LookupReport.render(s, LookupReport.run(dir.resolve("table"), s)));
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
        return true;
    }
}
