package io.walsink.bench.runner;

import io.walsink.bench.engine.NativeMemoryReport;
import io.walsink.bench.runner.Definition.Option;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * lance-core's native memory while writing SSTables, which operations.md's sizing of a writer slot
 * rests on; the measuring is {@link NativeMemoryReport}'s. Each setting runs in a fresh JVM, which
 * the runner starts as this same definition with {@code --child}.
 */
final class NativeMemoryDefinition {
    static final Definition DEFINITION = new Definition(
            "native-memory",
            "resident memory lance-core takes outside walsink's Arrow cap while writing 1, 2 or 4 SSTables",
            "frozen memtables of --rows distinct keys written as SSTables at once, in a fresh JVM per setting"
                    + " with a pre-touched heap",
            "none: the resident set before the writes",
            "peak resident set above the start, sampled while the writes run",
            List.of(
                    new Option("--rows", "1000000", "rows of each memtable written as an SSTable, all keys distinct"),
                    new Option("--parallel", "1,2,4", "numbers of SSTable writes at once, each in a fresh JVM"),
                    new Option("--child", "0", "internal: run N writes in this JVM and print one result line")),
            NativeMemoryDefinition::run);

    private NativeMemoryDefinition() {}

    private static boolean run(Flags f, PrintStream out) throws Exception {
        long rows = f.positive("--rows");
        int child = Integer.parseInt(f.get("--child"));
        if (child > 0) {
            out.println(NativeMemoryReport.resultLine(NativeMemoryReport.measure(rows, child)));
        } else {
            List<String> command = List.of(BenchmarkRunner.class.getName(), DEFINITION.name());
            out.print(NativeMemoryReport.report(rows, f.get("--parallel"), command));
        }
        return true;
    }
}
