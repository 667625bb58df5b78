package io.walsink.examples;

import java.nio.file.Path;

/** {@code --path}, {@code --rows}, {@code --keys}, {@code --buckets}; every one optional. */
record DemoArgs(String path, long rows, int keys, int buckets) {

    static DemoArgs parse(String[] args) {
        String path = Path.of(System.getProperty("java.io.tmpdir"), "walsink-demo-" + System.currentTimeMillis())
                .toString();
        long rows = 200_000;
        int keys = 10_000;
        int buckets = 4;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                throw new IllegalArgumentException(
                        "usage: UpsertDemo [--path DIR|s3://bucket/prefix] [--rows N] [--keys N] [--buckets N]");
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
                default -> throw new IllegalArgumentException(
                        "unknown option " + flag + "; options: --path, --rows, --keys, --buckets");
            }
        }
        return new DemoArgs(path, rows, keys, buckets);
    }

    private static long positive(String flag, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(flag + " must be positive, was " + value);
        }
        return value;
    }
}
