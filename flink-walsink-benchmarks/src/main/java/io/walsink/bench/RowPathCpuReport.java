package io.walsink.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The production row path ({@link MemtablePutBenchmark#driverWriteRow}) and its row-copy
 * baseline, in CPU nanoseconds per row of the measuring thread rather than rows per second of
 * wall time: on a shared machine a thread's CPU time does not count the time another process had
 * the core, so two builds of the engine can be compared while something else runs (JMH's wall
 * time on this 2-core machine moved by 2x under a parallel build). Each method runs in turn, in
 * rounds that alternate its order, for a fixed wall time per turn after a warm-up, in this JVM.
 * Cache misses still depend on what else runs; compare figures from the same run only.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp flink-walsink-benchmarks/target/benchmarks.jar \
 *     io.walsink.bench.RowPathCpuReport [--key-space 1000000] [--seconds 5] [--rounds 3]
 * </pre>
 */
public final class RowPathCpuReport {
    static final String USAGE = String.join(
            "\n",
            "Usage: RowPathCpuReport [options]",
            "  --key-space N   distinct keys the rows draw from (default 1000000)",
            "  --seconds N     wall seconds of each measured turn, after a warm-up turn as long (default 5)",
            "  --rounds N      turns of each method, alternating their order (default 3)");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("--key-space", "1000000");
        DEFAULTS.put("--seconds", "5");
        DEFAULTS.put("--rounds", "3");
    }

    enum Method implements CpuTurns.Described {
        ROW_COPY_BASELINE("copyFromSafe of each row into a new batch (JMH baseline)"),
        DRIVER_WRITE_ROW("ShardDrivers.write of one RowWriter per row (the operator's path)");

        private final String what;

        Method(String what) {
            this.what = what;
        }

        @Override
        public String what() {
            return what;
        }
    }

    private RowPathCpuReport() {}

    public static void main(String[] argv) throws Exception {
        Optional<Flags> parsed = Flags.forMain(argv, DEFAULTS, USAGE);
        if (parsed.isEmpty()) {
            return;
        }
        Flags flags = parsed.get();
        long keySpace = flags.positive("--key-space");
        long turnMillis = flags.positive("--seconds") * 1000;
        int rounds = flags.positiveInt("--rounds");
        System.out.print(render(keySpace, measure(keySpace, turnMillis, rounds)));
    }

    /** Warms each method up for one turn, then runs {@code rounds} measured turns of each. */
    static List<CpuTurns.Turn<Method>> measure(long keySpace, long turnMillis, int rounds) throws InterruptedException {
        MemtablePutBenchmark bench = new MemtablePutBenchmark();
        bench.keySpace = keySpace;
        bench.open();
        try {
            return CpuTurns.alternate(Method.values(), rounds, m -> turn(bench, m, turnMillis));
        } finally {
            bench.close();
        }
    }

    private static CpuTurns.Turn<Method> turn(MemtablePutBenchmark bench, Method method, long turnMillis)
            throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long rows = 0;
        long cpu = 0;
        long end = System.nanoTime() + turnMillis * 1_000_000;
        do {
            bench.nextKeys(); // outside the count, as JMH's per-invocation set-up is outside its timing
            long before = threads.getCurrentThreadCpuTime();
            if (method == Method.DRIVER_WRITE_ROW) {
                bench.driverWriteRow();
            } else {
                bench.baseline();
            }
            cpu += threads.getCurrentThreadCpuTime() - before;
            bench.recycleFullMemtables();
            rows += MemtablePutBenchmark.ROWS;
        } while (System.nanoTime() < end);
        return new CpuTurns.Turn<>(method, rows, cpu);
    }

    static String render(long keySpace, List<CpuTurns.Turn<Method>> turns) {
        return String.format(
                "%n== the row path in CPU time of the writing thread, %,d keys (higher x = cheaper than the baseline) ==%n%s",
                keySpace, CpuTurns.table(turns, Method.values(), Method.ROW_COPY_BASELINE));
    }
}
