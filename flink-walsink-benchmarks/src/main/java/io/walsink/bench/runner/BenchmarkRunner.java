package io.walsink.bench.runner;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Optional;

/**
 * The one entry point of the whole-job benchmarks: {@code --list} names every definition,
 * {@code <name> [--flag value ...]} runs one and prints its tables, {@code <name> -h} prints its
 * declaration and options. The exit code is 0 when the run's correctness checks held, 1 when one
 * failed, 2 for a bad command line; the JVM exits explicitly because a local Flink cluster and
 * lance-core leave threads behind.
 */
public final class BenchmarkRunner {
    static final String USAGE = String.join(
            "\n",
            "Usage: java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx3g -cp benchmarks.jar io.walsink.bench.runner.BenchmarkRunner",
            "         --list | <name> [options] | <name> -h",
            "  --list      the benchmark definitions, one a line",
            "  <name>      run that definition and print its tables",
            "  <name> -h   its goal, what runs, its references, its rules and its options",
            "JMH micro-benchmarks of the engine: java ... -jar benchmarks.jar (io.walsink.bench.jmh.BenchmarkReport)");

    private BenchmarkRunner() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line {@code args}; returns the exit code (see the class comment). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        switch (args[0]) {
            case "-h", "--help" -> {
                out.println(USAGE);
                return 0;
            }
            case "--list" -> {
                out.print(Definitions.list());
                return 0;
            }
            default -> {}
        }
        Optional<Definition> definition = Definitions.named(args[0]);
        if (definition.isEmpty()) {
            err.println("no benchmark '" + args[0] + "'; these are defined:\n" + Definitions.list());
            return 2;
        }
        Definition d = definition.get();
        io.walsink.bench.support.Flags flags;
        try {
            flags = d.parse(Arrays.copyOfRange(args, 1, args.length));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        if (flags.help()) {
            out.print(d.usage());
            return 0;
        }
        try {
            return d.run(flags, out) ? 0 : 1;
        } catch (IllegalArgumentException e) {
            // options that parse but do not fit together (e.g. rows not a multiple of the parallelism)
            err.println(d.name() + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            e.printStackTrace(err);
            return 1;
        }
    }
}
