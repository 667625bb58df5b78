package io.walsink.bench.runner;

import io.walsink.bench.jobs.MaintenanceRun;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * A long job with compaction and garbage collection on while a reader polls the table: the goals'
 * maintenance rows; the measuring is {@link MaintenanceRun}'s.
 */
final class MaintenanceDefinition {
    static final Definition DEFINITION = new Definition(
            "maintenance",
            "maintenance run: visibility lag p99 <= checkpoint interval + 2 s; SSTables per shard small;"
                    + " storage amplification <= 3",
            "a rate-limited job (2 writer subtasks) with checkpoints, compaction and garbage collection on,"
                    + " while a TableReader (COMMITTED) polls the table",
            "none: bounds",
            "every change's lag from leaving the source to the reader seeing it; SSTables per shard during"
                    + " the run and at the end; table folder bytes over live row bytes",
            List.of(
                    new Option("--seconds", "60", "seconds of generation"),
                    new Option("--rate", "200", "changes per second"),
                    new Option("--keys", "5000", "distinct keys"),
                    new Option("--value-bytes", "1000", "padding of each value"),
                    new Option("--buckets", "4", "buckets"),
                    new Option("--checkpoint-ms", "1000", "checkpoint interval"),
                    new Option("--max-age-ms", "0", "sink.memtable.max-age"),
                    new Option("--retention-s", "10", "garbage collection's retention"),
                    new Option("--maintenance-s", "5", "interval of compaction and collection")),
            MaintenanceDefinition::run);

    private MaintenanceDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        out.print(MaintenanceRun.run(new MaintenanceRun.Settings(
                f.positiveInt("--seconds"),
                f.positiveInt("--rate"),
                f.positiveInt("--keys"),
                Integer.parseInt(f.get("--value-bytes")),
                f.positiveInt("--buckets"),
                f.positive("--checkpoint-ms"),
                Long.parseLong(f.get("--max-age-ms")),
                f.positive("--retention-s"),
                f.positive("--maintenance-s"))));
        return true;
    }
}
