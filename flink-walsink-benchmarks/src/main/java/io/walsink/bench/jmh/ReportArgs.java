package io.walsink.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Command-line settings of {@link BenchmarkReport}. The short flags are JMH's own, so a reader who
 * knows JMH knows them; the defaults are short on purpose (a shared 2-core machine).
 */
record ReportArgs(
        int forks,
        int warmupIterations,
        int iterations,
        TimeValue warmupTime,
        TimeValue time,
        int rounds,
        String include,
        boolean jmh,
        boolean help) {

    static final String USAGE = String.join(
            "\n",
            "Usage: java --add-opens=java.base/java.nio=ALL-UNNAMED -jar benchmarks.jar [options]",
            "  -f N            forks per benchmark (default 1; 0 runs in this JVM)",
            "  -wi N           warmup iterations (default 1)",
            "  -i N            measurement iterations (default 3)",
            "  -w TIME         warmup iteration time, e.g. 1s, 500ms (default 1s)",
            "  -r TIME         measurement iteration time (default 1s)",
            "  --rounds N      run each baseline/benchmark pair N times, alternating order (default 1);",
            "                  the ratio is the median of the per-round ratios",
            "  --include REGEX benchmarks to run, found in package.Class.method (default: all);",
            "                  a selected benchmark's baseline always runs too",
            "  --no-jmh        only the non-timing sections (key memory, tick-bounded PUTs)",
            "  -h, --help      this text",
            "Whole-writer and whole-job benchmarks: java ... -cp benchmarks.jar io.walsink.bench.runner.BenchmarkRunner --list");

    static ReportArgs defaults() {
        return parse(new String[0]);
    }

    static ReportArgs parse(String[] args) {
        int forks = 1;
        int warmupIterations = 1;
        int iterations = 3;
        TimeValue warmupTime = TimeValue.seconds(1);
        TimeValue time = TimeValue.seconds(1);
        int rounds = 1;
        String include = "";
        boolean jmh = true;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "-h", "--help" -> help = true;
                case "--no-jmh" -> jmh = false;
                case "-f" -> forks = count(flag, value(args, ++i));
                case "-wi" -> warmupIterations = count(flag, value(args, ++i));
                case "-i" -> iterations = count(flag, value(args, ++i));
                case "-w" -> warmupTime = time(flag, value(args, ++i));
                case "-r" -> time = time(flag, value(args, ++i));
                case "--rounds" -> rounds = count(flag, value(args, ++i));
                case "--include" -> include = value(args, ++i);
                default -> throw new IllegalArgumentException("unknown option '" + flag + "'\n" + USAGE);
            }
        }
        if (iterations < 1 || rounds < 1) {
            throw new IllegalArgumentException("-i and --rounds must be at least 1");
        }
        return new ReportArgs(forks, warmupIterations, iterations, warmupTime, time, rounds, include, jmh, help);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException("option '" + args[i - 1] + "' needs a value\n" + USAGE);
        }
        return args[i];
    }

    private static int count(String flag, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a non-negative integer, got '" + value + "'");
        }
    }

    private static TimeValue time(String flag, String value) {
        try {
            if (value.endsWith("ms")) {
                return new TimeValue(Long.parseLong(value.substring(0, value.length() - 2)), TimeUnit.MILLISECONDS);
            }
            if (value.endsWith("s")) {
                return new TimeValue(Long.parseLong(value.substring(0, value.length() - 1)), TimeUnit.SECONDS);
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException(flag + " needs a time such as 1s or 500ms, got '" + value + "'");
    }
}
