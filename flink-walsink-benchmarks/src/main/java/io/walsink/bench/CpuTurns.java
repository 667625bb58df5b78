package io.walsink.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Methods compared in CPU time of the measuring thread: turns of each in alternating order (so
 * neither always runs first or last), and a table of nanoseconds per row against a baseline
 * method. A thread's CPU time does not count the time another process held the core, so two
 * methods can be compared while something else runs; cache misses still depend on it.
 */
final class CpuTurns {
    private CpuTurns() {}

    /** What a method is, for the table. */
    interface Described {
        String what();
    }

    /** One turn: the method, rows written and the measuring thread's CPU nanoseconds for them. */
    record Turn<M>(M method, long rows, long cpuNanos) {
        double nanosPerRow() {
            return (double) cpuNanos / rows;
        }
    }

    /** Runs one turn of a method. */
    interface Runner<M> {
        Turn<M> turn(M method) throws InterruptedException;
    }

    /** One warm-up turn of each method, then {@code rounds} measured turns of each, alternating. */
    static <M> List<Turn<M>> alternate(M[] methods, int rounds, Runner<M> runner) throws InterruptedException {
        for (M m : methods) {
            runner.turn(m);
        }
        List<Turn<M>> turns = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < methods.length; i++) {
                turns.add(runner.turn(methods[round % 2 == 0 ? i : methods.length - 1 - i]));
            }
        }
        return turns;
    }

    /** Per method: median, min and max CPU ns a row, and the baseline's median over its own. */
    static <M extends Enum<M> & Described> String table(List<Turn<M>> turns, M[] methods, M baseline) {
        TextTable table = new TextTable(
                "method",
                "what",
                ">CPU ns/row: median",
                ">min",
                ">max",
                ">x " + name(baseline) + " (medians)",
                ">turns");
        double base = Spread.of(perRow(turns, baseline)).median();
        for (M m : methods) {
            Spread own = Spread.of(perRow(turns, m));
            table.row(
                    name(m),
                    m.what(),
                    Figures.number(own.median()),
                    Figures.number(own.min()),
                    Figures.number(own.max()),
                    String.format("%.2fx", base / own.median()),
                    own.rounds());
        }
        return table.render();
    }

    private static String name(Enum<?> m) {
        return m.name().toLowerCase().replace('_', ' ');
    }

    private static <M> List<Double> perRow(List<Turn<M>> turns, M m) {
        return turns.stream()
                .filter(t -> t.method() == m)
                .map(Turn::nanosPerRow)
                .toList();
    }
}
