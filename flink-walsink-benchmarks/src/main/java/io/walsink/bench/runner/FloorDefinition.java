package io.walsink.bench.runner;

import io.walsink.bench.jobs.FloorReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.ChildJvm;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * The floor against which the sink's extra CPU per row is judged; the measuring is
 * {@link FloorReport}'s. It runs in a child JVM, which the runner starts as this same definition
 * with {@code --child}.
 */
final class FloorDefinition {
    static final Definition DEFINITION = new Definition(
            "floor",
            "the least CPU per row any MemWAL sink of the q1 stream spends; the sink's extra CPU <= 3x it",
            "q1's binary rows copied into reused Arrow memory by raw stores, the newest row per key in the"
                    + " sink's LongKeyIndex, Arrow IPC of every batch into memory, the newest rows gathered,"
                    + " lance-core writing them as the sink's SSTable write does",
            "none: each step's CPU per input row is the figure",
            "a child JVM with a pre-touched heap; one unreported round, then medians of the rounds; thread"
                    + " CPU and faults per step, the process's for lance-core's write",
            List.of(
                    new Option("--rows", "3000000", "q1 changes"),
                    new Option("--keys", "1000000", "distinct keys"),
                    new Option("--rounds", "5", "timed rounds after the unreported one"),
                    new Option("--seed", "42", "seed of the key order and values"),
                    new Option(
                            "--malloc",
                            "tuned",
                            "tuned (glibc keeping freed memory), default (glibc's defaults) or both, each its own JVM"),
                    new Option("--heap", "2g", "the child's -Xms and -Xmx"),
                    new Option("--child", "false", "internal: measure in this JVM and print result lines")),
            FloorDefinition::run);

    private FloorDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        long rows = f.positive("--rows");
        long keys = f.positive("--keys");
        long seed = Long.parseLong(f.get("--seed"));
        int rounds = f.positiveInt("--rounds");
        if (f.on("--child")) {
            FloorReport.measureHere(rows, keys, seed, rounds).forEach(l -> out.println(ChildJvm.RESULT + l));
            return true;
        }
        List<FloorReport.PerRow> results = FloorReport.inChildJvms(
                rows, keys, seed, rounds, f.get("--heap"), FloorReport.Malloc.parse(f.get("--malloc")), out::print);
        out.print(FloorReport.render(rows, keys, rounds, results));
        return true;
    }
}
