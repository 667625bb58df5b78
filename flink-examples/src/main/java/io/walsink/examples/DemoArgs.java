package io.walsink.examples;

import io.walsink.flink.SinkOptions;
import io.walsink.flink.WalSinkBuilder;
import io.walsink.storage.S3Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * {@code --path}, {@code --rows}, {@code --keys}, {@code --buckets}, {@code --rate},
 * {@code --parallelism}, {@code --maintenance-interval}, {@code --sink-option}; every one optional.
 * {@code rate} is changes per second, 0 for as fast as possible (a throttled job stays running long
 * enough to watch it, to stop it with a savepoint or to kill a TaskManager under it).
 * {@code parallelism} is the writers' (the generator always runs as one task);
 * {@code maintenanceSeconds} the sink's {@code sink.maintenance.interval}, 0 for its default;
 * {@code sinkOptions} more {@link SinkOptions} by their SQL names
 * ({@code --sink-option sink.memtable.max-age=1h}, repeatable), applied last.
 */
record DemoArgs(
        String path,
        long rows,
        int keys,
        int buckets,
        S3Options s3,
        double rate,
        int parallelism,
        long maintenanceSeconds,
        Map<String, String> sinkOptions) {

    DemoArgs(String path, long rows, int keys, int buckets) {
        this(path, rows, keys, buckets, S3Options.defaults(), 0, 2, 0, Map.of());
    }

    /**
     * The demos' sink settings on {@code builder}: the table (created with {@link #buckets} if
     * missing), key {@code id}, a 100 ms WAL flush, S3, the maintenance interval and the sink options.
     */
    <T> WalSinkBuilder<T> sink(WalSinkBuilder<T> builder) {
        builder.path(path)
                .primaryKey("id")
                .createTableIfMissing(buckets)
                .flushInterval(Duration.ofMillis(100))
                .s3(s3);
        if (maintenanceSeconds > 0) {
            builder.maintenanceInterval(Duration.ofSeconds(maintenanceSeconds));
        }
        return builder.options(Configuration.fromMap(sinkOptions));
    }

    /** Usage asked for: printed, and the demo ends with exit code 0. */
    static final class HelpRequested extends RuntimeException {
        HelpRequested(String usage) {
            super(usage);
        }
    }

    static DemoArgs parse(String[] args) {
        return parse("UpsertDemo", args, 200_000, 10_000);
    }

    /** Parses, or prints the usage (exit 0 for --help) or the problem (exit 2) and exits. */
    static DemoArgs parseOrExit(String demo, String[] args, long defaultRows, int defaultKeys) {
        try {
            return parse(demo, args, defaultRows, defaultKeys);
        } catch (HelpRequested help) {
            System.out.println(help.getMessage());
            System.exit(0);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
        throw new AssertionError("unreachable");
    }

    static DemoArgs parse(String demo, String[] args, long defaultRows, int defaultKeys) {
        String path = Path.of(System.getProperty("java.io.tmpdir"), "walsink-demo-" + System.currentTimeMillis())
                .toString();
        long rows = defaultRows;
        int keys = defaultKeys;
        int buckets = 4;
        double rate = 0;
        int parallelism = 2;
        long maintenanceSeconds = 0;
        Map<String, String> sinkOptions = new LinkedHashMap<>();
        S3Options.Builder s3 = S3Options.builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                throw new HelpRequested("usage: " + demo
                        + " [--path DIR|s3://bucket/prefix] [--rows N] [--keys N] [--buckets N] [--rate CHANGES_PER_S]\n"
                        + "        [--parallelism WRITERS (default 2)] [--maintenance-interval SECONDS (compaction and"
                        + " GC; default 10)]\n"
                        + "        [--sink-option KEY=VALUE (a sink.* option of docs/configuration.md; repeatable)]\n"
                        + "        [--s3-endpoint URL] [--s3-region NAME] [--s3-path-style]   (s3:// paths; credentials"
                        + " from the AWS default chain)\n"
                        + "Runs on an embedded local Flink cluster; the table goes to a new folder under the temp"
                        + " directory unless --path is given.");
            }
            if (flag.equals("--s3-path-style")) {
                s3.pathStyleAccess(true);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--path" -> path = value;
                case "--rows" -> rows = positive(flag, Long.parseLong(value));
                case "--keys" -> keys = (int) positive(flag, Integer.parseInt(value));
                case "--buckets" -> buckets = (int) positive(flag, Integer.parseInt(value));
                case "--rate" -> rate = positive(flag, Long.parseLong(value));
                case "--parallelism" -> parallelism = (int) positive(flag, Integer.parseInt(value));
                case "--maintenance-interval" -> maintenanceSeconds = positive(flag, Long.parseLong(value));
                case "--sink-option" -> sinkOption(value, sinkOptions);
                case "--s3-endpoint" -> s3.endpoint(value);
                case "--s3-region" -> s3.region(value);
                default -> throw new IllegalArgumentException("unknown option " + flag
                        + "; options: --path, --rows, --keys, --buckets, --rate, --parallelism,"
                        + " --maintenance-interval, --sink-option, --s3-endpoint, --s3-region, --s3-path-style");
            }
        }
        return new DemoArgs(
                path, rows, keys, buckets, s3.build(), rate, parallelism, maintenanceSeconds, Map.copyOf(sinkOptions));
    }

    private static void sinkOption(String keyValue, Map<String, String> options) {
        int eq = keyValue.indexOf('=');
        String key = eq < 0 ? keyValue : keyValue.substring(0, eq);
        if (eq < 0 || SinkOptions.all().stream().noneMatch(o -> o.key().equals(key))) {
            throw new IllegalArgumentException("--sink-option takes KEY=VALUE with KEY a sink option"
                    + " (docs/configuration.md), e.g. sink.memtable.max-age=1h; was " + keyValue);
        }
        options.put(key, keyValue.substring(eq + 1));
    }

    private static long positive(String flag, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(flag + " must be positive, was " + value);
        }
        return value;
    }
}
