package io.walsink.examples;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.types.Row;

/** Prints how far the generator got, every tenth of the run (the demo's source runs as one task). */
final class Progress implements MapFunction<Row, Row> {
    private final long total;
    private final long step;
    private final String what;
    private long seen;

    Progress(long total) {
        this(total, "changes");
    }

    /** {@code what}: the records' name in the progress lines. */
    Progress(long total, String what) {
        this.total = total;
        this.step = Math.max(1, total / 10);
        this.what = what;
    }

    @Override
    public Row map(Row row) {
        if (++seen % step == 0 || seen == total) {
            System.out.printf("  generated %,d of %,d %s (%d%%)%n", seen, total, what, seen * 100 / total);
        }
        return row;
    }
}
