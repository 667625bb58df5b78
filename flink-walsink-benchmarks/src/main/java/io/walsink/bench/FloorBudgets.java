package io.walsink.bench;

import io.walsink.bench.Q1Pipelines.Pipeline;
import java.util.ArrayList;
import java.util.List;

/** {@link SinkFloor}'s steps set against the CPU budget each of {@link Q1Report}'s goals leaves a sink. */
final class FloorBudgets {
    private FloorBudgets() {}

    /**
     * The floor's steps, and per reference the CPU budget a sink has at the goal (reference CPU per
     * row x (1/goal - 1), the job being CPU-bound) beside the floor: a goal below the floor is out
     * of reach of any sink that writes this table on this machine. Against the unshuffled
     * reference the floor includes the shuffle (the keyed reference's CPU minus the unshuffled
     * one's), since each shard's single writer must receive its rows.
     */
    static String render(List<Q1Report.Run> runs, List<List<Pipeline>> groups, SinkFloor.PerRow floor) {
        TextTable steps = new TextTable("least work per input row (plainest code, not walsink's)", ">CPU ns/row");
        steps.row("copy: binary RowData values into Arrow vectors, 8,192-row batches", Figures.number(floor.copy()));
        steps.row(
                "newest row per key: one probe a row into a plain open-addressing map",
                Figures.number(floor.newestPerKey()));
        steps.row(
                "WAL bytes: those batches once as Arrow IPC into a local file, no fsync",
                Figures.number(floor.walBytes()));
        steps.row(
                String.format(
                        "Lance write: lance-core writing the %,d final rows once (over %,d input rows)",
                        floor.tableRows(), floor.inputRows()),
                Figures.number(floor.lanceWrite()));
        steps.row("floor (sum)", Figures.number(floor.total()));
        TextTable budgets = new TextTable(
                "api",
                "reference",
                ">reference CPU ns/row (median)",
                ">goal",
                ">extra CPU ns/row allowed at the goal",
                ">floor ns/row",
                "goal within reach of any sink");
        for (List<Pipeline> group : groups) {
            double keyed = medianCpuPerRow(runs, Pipeline.DATASTREAM_DISCARD_KEYED);
            for (Pipeline reference : group.subList(1, group.size())) {
                double perRow = medianCpuPerRow(runs, reference);
                double allowed = perRow * (1 / reference.goal - 1);
                // A MemWAL shard has one writer, so a sink shuffles every row to it; a reference
                // without the shuffle leaves the sink that cost on top of the floor.
                double sinkFloor = reference == Pipeline.DATASTREAM_DISCARD_UNSHUFFLED && !Double.isNaN(keyed)
                        ? floor.total() + Math.max(0, keyed - perRow)
                        : floor.total();
                budgets.row(
                        group.get(0).api,
                        reference.sink,
                        Figures.number(perRow),
                        ">= " + Figures.ratio(reference.goal),
                        Figures.number(allowed),
                        Figures.number(sinkFloor) + (sinkFloor > floor.total() ? " (+ the shuffle)" : ""),
                        Double.isNaN(allowed)
                                ? "-"
                                : sinkFloor <= allowed ? "yes" : "no: the floor exceeds the budget");
            }
        }
        return String.format(
                "%n== the least a sink must do per row, and what each goal allows ==%n%s%n%s",
                steps.render(), budgets.render());
    }

    /** Median CPU ns a row of {@code pipeline}'s runs; NaN without any. */
    private static double medianCpuPerRow(List<Q1Report.Run> runs, Pipeline pipeline) {
        List<Double> cpu = new ArrayList<>();
        for (Q1Report.Run r : runs) {
            if (r.pipeline() == pipeline && r.timing().cpuNanos() > 0) {
                cpu.add((double) r.timing().cpuNanos() / r.rows());
            }
        }
        return cpu.isEmpty() ? Double.NaN : Spread.of(cpu).median();
    }
}
