package io.walsink.bench.runner;

import io.walsink.bench.support.Flags;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One whole-job benchmark, declared rather than programmed: its name, the goal it measures, what
 * runs, the references run beside it in the same process, its measurement rules, and its options
 * (sizes, rounds and the rest, each with a default). {@link BenchmarkRunner} lists, explains and
 * runs definitions; {@link Definitions} registers them; the body calls the measuring code of the
 * {@code jobs}, {@code engine} and {@code read} packages with the parsed options.
 */
public record Definition(
        String name, String goal, String runs, String references, String rules, List<Option> options, Body body) {

    /** How {@code --help} prints a definition from the shell. */
    private static final String COMMAND =
            "java --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks.jar io.walsink.bench.runner.BenchmarkRunner";

    /**
     * A {@code --flag value} option with its default, or a switch when the default is
     * {@code "false"}; a help line may go on with {@code \n}, indented under the first.
     */
    public record Option(String flag, String defaultValue, String help) {
        boolean isSwitch() {
            return defaultValue.equals("false");
        }

        /** What the usage shows after the flag: nothing for a switch, LIST for a list default, else N or VALUE. */
        String placeholder() {
            if (isSwitch()) {
                return "";
            }
            if (defaultValue.contains(",")) {
                return " LIST";
            }
            return defaultValue.matches("[0-9_.]+") ? " N" : " VALUE";
        }
    }

    /** Runs the benchmark with parsed options, printing as it goes; false when a correctness check failed. */
    @FunctionalInterface
    public interface Body {
        boolean run(Flags flags, PrintStream out) throws Exception;
    }

    public Definition {
        options = List.copyOf(options);
    }

    /** Every option's default, by flag, in declaration order. */
    public Map<String, String> defaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        options.forEach(o -> defaults.put(o.flag(), o.defaultValue()));
        return defaults;
    }

    /** Parses {@code args} against this definition's options; unknown or valueless options are refused. */
    public Flags parse(String... args) {
        return Flags.parse(args, defaults(), usage());
    }

    /** Runs the body; see {@link Body#run}. */
    public boolean run(Flags flags, PrintStream out) throws Exception {
        return body.run(flags, out);
    }

    /** The {@code -h} text: the declaration, then each option with its default. */
    public String usage() {
        int width = options.stream()
                        .mapToInt(o -> o.flag().length() + o.placeholder().length())
                        .max()
                        .orElse(0)
                + 2;
        StringBuilder out = new StringBuilder(String.format("Usage: %s %s [options]%n", COMMAND, name));
        out.append(String.format("  goal:       %s%n  runs:       %s%n", goal, runs));
        out.append(String.format("  references: %s%n  rules:      %s%n", references, rules));
        out.append("Options:\n");
        for (Option o : options) {
            String[] lines = o.help().split("\n");
            String head = o.flag() + o.placeholder();
            for (int i = 0; i < lines.length; i++) {
                String last = i == lines.length - 1
                                && !o.isSwitch()
                                && !o.defaultValue().isEmpty()
                        ? " (default " + o.defaultValue() + ")"
                        : "";
                out.append(String.format("  %-" + width + "s %s%s%n", i == 0 ? head : "", lines[i], last));
            }
        }
        out.append(String.format("  %-" + width + "s %s%n", "-h, --help", "this text"));
        return out.toString();
    }
}
