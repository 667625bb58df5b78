package io.walsink.bench.jobs;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The observer's sink: notes the wall-clock time each row of a continuous read ({@code seq},
 * {@code created_ms}) reaches it in the {@link Arrivals} log of that name. Deletes are counted as
 * unexpected: the benchmark's rows are only ever inserted.
 */
record ArrivalSink(String log) implements Sink<Row> {
    @Override
    public SinkWriter<Row> createWriter(WriterInitContext context) {
        Arrivals arrivals = Arrivals.named(log);
        return new SinkWriter<>() {
            @Override
            public void write(Row row, Context context) {
                long now = System.currentTimeMillis();
                long seq = (Long) row.getField(0);
                if (row.getKind() == RowKind.DELETE || row.getKind() == RowKind.UPDATE_BEFORE) {
                    arrivals.arrived(-1, 0, now);
                } else {
                    arrivals.arrived(seq, (Long) row.getField(1), now);
                }
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
