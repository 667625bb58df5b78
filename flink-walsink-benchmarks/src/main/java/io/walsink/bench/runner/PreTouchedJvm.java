package io.walsink.bench.runner;

import io.walsink.bench.support.ChildJvm;
import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Whole-job benchmarks run in a child JVM whose heap is committed and touched at start ({@code
 * --heap}), so that no timed run pays for the heap's growth, unless they run in one already or
 * {@code --heap 0} keeps them in this JVM (the unit tests' way).
 */
final class PreTouchedJvm {
    static final Definition.Option HEAP = new Definition.Option(
            "--heap", "3g", "-Xms = -Xmx of the pre-touched child JVM the run goes to; 0: run in this JVM");

    private PreTouchedJvm() {}

    /**
     * Runs {@code here} in this JVM when it is the child or {@code --heap 0}, else the definition in
     * a child, after {@code check} has refused options that do not fit together.
     */
    static boolean run(Definition d, Flags f, PrintStream out, Consumer<Flags> check, Definition.Body here)
            throws Exception {
        check.accept(f);
        String heap = f.get("--heap");
        if (ChildJvm.isChild() || heap.equals("0")) {
            return here.run(f, out);
        }
        List<String> args = new ArrayList<>(List.of(BenchmarkRunner.class.getName(), d.name()));
        args.addAll(f.asArgs());
        try {
            ChildJvm.run(ChildJvm.command(heap, args), Map.of(), out::print);
            return true;
        } catch (IllegalStateException failed) {
            out.println(failed.getMessage());
            return false;
        }
    }
}
