package io.walsink.bench;

import io.walsink.shard.RowWriter;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The benchmarks' stand-in for a source record on the production row path: writes row
 * {@link #at} of an Arrow batch into the memtable value by value, as the Flink operator's
 * converter writes a {@code RowData}'s fields.
 */
final class BatchRowWriter implements RowWriter {
    private final FieldVector[] from;
    int at;

    BatchRowWriter(VectorSchemaRoot batch) {
        this.from = batch.getFieldVectors().toArray(new FieldVector[0]);
    }

    @Override
    public void writeRow(FieldVector[] columns, int to) {
        for (int c = 0; c < from.length; c++) {
            columns[c].copyFromSafe(at, to, from[c]);
        }
    }
}
