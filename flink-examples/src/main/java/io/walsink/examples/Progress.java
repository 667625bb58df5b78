package io.walsink.examples;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.types.Row;

/** Prints how far the generator got, every tenth of the run (the demo's source runs as one task). */
final class Progress implements MapFunction<Row, Row> {
    private final long total;
    private final long step;
    private long seen;

    Progress(long total) {
        this.total = total;
        this.step = Math.max(1, total / 10);
    }

    @Override
    public Row map(Row row) {
        if (++seen % step == 0 || seen == total) {
            System.out.printf("  generated %,d of %,d changes (%d%%)%n", seen, total, seen * 100 / total);
        }
        return row;
    }
}
