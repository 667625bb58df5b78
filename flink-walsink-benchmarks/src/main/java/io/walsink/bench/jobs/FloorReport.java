package io.walsink.bench.jobs;

import io.walsink.bench.support.ChildJvm;
import io.walsink.bench.support.Figures;
import io.walsink.bench.support.LocalShardTable;
import io.walsink.bench.support.Spread;
import io.walsink.bench.support.TextTable;
import io.walsink.shard.OffHeapAllocators;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The floor: the least CPU per input row that any sink leaving the q1 stream in a Lance table
 * through a MemWAL layout spends, each step written as a competent sink would write it
 * ({@link FloorRound}). It runs in a child JVM with a pre-touched heap, one unreported round first
 * (the JIT, and the first touch of the reused memory), then rounds on one thread; each step's
 * figure is the median over the rounds of its CPU per row: the thread's CPU for the steps on it,
 * the process's for lance-core's write (whose work runs on lance-core's own threads). Minor page
 * faults per row are counted the same way. lance-core's native memory comes from glibc's malloc,
 * run with or without {@link ChildJvm#GLIBC_KEEPS_FREED_MEMORY} in the child's environment.
 */
public final class FloorReport {
    /** The child's environment: glibc keeping freed memory ("tuned") or glibc's defaults. */
    public enum Malloc {
        TUNED(ChildJvm.GLIBC_KEEPS_FREED_MEMORY),
        DEFAULT(Map.of());

        final Map<String, String> env;

        Malloc(Map<String, String> env) {
            this.env = env;
        }

        /** {@code tuned}, {@code default} or {@code both}. */
        public static List<Malloc> parse(String value) {
            return switch (value) {
                case "tuned" -> List.of(TUNED);
                case "default" -> List.of(DEFAULT);
                case "both" -> List.of(TUNED, DEFAULT);
                default -> throw new IllegalArgumentException(
                        "--malloc takes tuned, default or both, got '" + value + "'");
            };
        }
    }

    /** Per step, the median over the rounds of CPU ns per input row, and of minor faults per input row. */
    public record PerRow(Malloc malloc, double[] cpu, double[] faults, double[] cpuMin, double[] cpuMax) {
        public double total() {
            return Arrays.stream(cpu).sum();
        }

        public double totalFaults() {
            return Arrays.stream(faults).sum();
        }
    }

    /** The goal for a sink's extra CPU per row beside its keyed reference: at most this many floors. */
    static final double GOAL = 3;

    private FloorReport() {}

    /**
     * The line that sets a sink's extra CPU per row beside {@code reference} (one value per round)
     * against the floor measured on the same rows; empty when there are no rounds.
     */
    static String againstTheFloor(List<Double> extraPerRow, String reference, double floor) {
        if (extraPerRow.isEmpty()) {
            return "";
        }
        double median = Spread.of(extraPerRow).median();
        return String.format(
                Locale.ROOT,
                "the sink's extra CPU over \"%s\" / the floor: %s / %s ns/row = %.2fx (goal <= %.0fx: %s)%n",
                reference,
                Figures.number(median),
                Figures.number(floor),
                median / floor,
                GOAL,
                median / floor <= GOAL ? "met" : "not met");
    }

    /**
     * In this JVM: one unreported round, then {@code rounds} rounds; returns one line per round
     * ({@link #parse} reads them): the CPU ns, then the minor faults, of each step.
     */
    public static List<String> measureHere(long rows, long keys, long seed, int rounds) throws IOException {
        Q1Rows q1 = new Q1Rows(rows, keys, 1, seed);
        List<String> lines = new ArrayList<>();
        Path scratch = Files.createTempDirectory("walsink-floor-");
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE);
                FloorRound round = new FloorRound(q1, allocator)) {
            for (int r = 0; r <= rounds; r++) {
                Path table = scratch.resolve("table-" + r);
                FloorRound.Spent spent = round.run(table);
                LocalShardTable.deleteRecursively(table);
                if (r > 0) {
                    lines.add(rows + " " + join(spent.cpuNanos()) + " " + join(spent.faults()));
                }
            }
        } finally {
            LocalShardTable.deleteRecursively(scratch);
        }
        return lines;
    }

    /** The child's arguments after the main class: the runner's floor definition in child mode. */
    public static List<String> childArgs(long rows, long keys, long seed, int rounds) {
        return List.of(
                "io.walsink.bench.runner.BenchmarkRunner",
                "floor",
                "--child",
                "--rows",
                String.valueOf(rows),
                "--keys",
                String.valueOf(keys),
                "--seed",
                String.valueOf(seed),
                "--rounds",
                String.valueOf(rounds));
    }

    /** Runs the floor in one child JVM per setting of {@code mallocs}, one after the other. */
    public static List<PerRow> inChildJvms(
            long rows, long keys, long seed, int rounds, String heap, List<Malloc> mallocs, Consumer<String> out)
            throws IOException, InterruptedException {
        List<PerRow> results = new ArrayList<>();
        for (Malloc m : mallocs) {
            List<String> lines = ChildJvm.run(ChildJvm.command(heap, childArgs(rows, keys, seed, rounds)), m.env, out);
            results.add(parse(m, lines));
        }
        return results;
    }

    /** The medians of the rounds' lines that {@link #measureHere} returned. */
    static PerRow parse(Malloc malloc, List<String> lines) {
        int steps = FloorRound.Spent.STEPS.length;
        double[] cpu = new double[steps];
        double[] faults = new double[steps];
        double[] min = new double[steps];
        double[] max = new double[steps];
        for (int s = 0; s < steps; s++) {
            List<Double> c = new ArrayList<>();
            List<Double> f = new ArrayList<>();
            for (String line : lines) {
                String[] v = line.split(" ");
                double rows = Double.parseDouble(v[0]);
                c.add(Double.parseDouble(v[1 + s]) / rows);
                f.add(Double.parseDouble(v[1 + steps + s]) / rows);
            }
            Spread spread = Spread.of(c);
            cpu[s] = spread.median();
            min[s] = spread.min();
            max[s] = spread.max();
            faults[s] = Spread.of(f).median();
        }
        return new PerRow(malloc, cpu, faults, min, max);
    }

    /** One row per step and the total; a pair of columns per setting. */
    public static String render(long rows, long keys, int rounds, List<PerRow> results) {
        List<String> header = new ArrayList<>(List.of("step"));
        for (PerRow r : results) {
            String m = r.malloc().name().toLowerCase(Locale.ROOT);
            header.add(">" + m + ": CPU ns/row, median (min-max)");
            header.add(">" + m + ": minor faults/row");
        }
        TextTable table = new TextTable(header.toArray(String[]::new));
        for (int s = 0; s < FloorRound.Spent.STEPS.length; s++) {
            List<Object> row = new ArrayList<>(List.of(FloorRound.Spent.STEPS[s]));
            for (PerRow r : results) {
                row.add(Figures.number(r.cpu()[s]) + " (" + Figures.number(r.cpuMin()[s]) + "-"
                        + Figures.number(r.cpuMax()[s]) + ")");
                row.add(String.format(Locale.ROOT, "%.4f", r.faults()[s]));
            }
            table.row(row.toArray());
        }
        List<Object> total = new ArrayList<>(List.of("total (the floor)"));
        for (PerRow r : results) {
            total.add(Figures.number(r.total()));
            total.add(String.format(Locale.ROOT, "%.4f", r.totalFaults()));
        }
        table.row(total.toArray());
        return String.format(
                "%n== the floor: %,d q1 rows over %,d keys, one warmed thread, medians of %d rounds ==%n"
                        + "CPU: the thread's for every step but lance-core's write, the process's for it (lance-core"
                        + " writes on its own threads); the same for minor page faults.%n"
                        + "tuned: glibc keeping freed memory (%s); default: glibc's defaults.%n%s",
                rows, keys, rounds, ChildJvm.GLIBC_KEEPS_FREED_MEMORY, table.render());
    }

    private static String join(long[] values) {
        StringBuilder s = new StringBuilder();
        for (long v : values) {
            s.append(s.length() == 0 ? "" : " ").append(v);
        }
        return s.toString();
    }
}
