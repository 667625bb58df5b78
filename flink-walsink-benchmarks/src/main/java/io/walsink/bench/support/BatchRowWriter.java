package io.walsink.bench.support;

import io.walsink.shard.memtable.RowWriter;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The benchmarks' stand-in for a source record on the production row path: writes row
 * {@link #at} of an Arrow batch into the memtable value by value, as the Flink operator's field
 * writers write a {@code RowData}'s fields: int64 and float64 values with {@code set} (the
 * memtable guarantees room in fixed-width vectors, see {@link RowWriter}), anything else with
 * Arrow's generic {@code copyFromSafe}.
 */
public final class BatchRowWriter implements RowWriter {
    private final FieldVector[] from;
    public int at;

    public BatchRowWriter(VectorSchemaRoot batch) {
        this.from = batch.getFieldVectors().toArray(new FieldVector[0]);
    }

    @Override
    public void writeRow(FieldVector[] columns, int to) {
        for (int c = 0; c < from.length; c++) {
            FieldVector source = from[c];
            FieldVector target = columns[c];
            if (source.isNull(at)) {
                if (target instanceof BaseFixedWidthVector fixed) {
                    fixed.setNull(to);
                } else {
                    target.copyFromSafe(at, to, source);
                }
            } else if (source instanceof BigIntVector longs) {
                ((BigIntVector) target).set(to, longs.get(at));
            } else if (source instanceof Float8Vector doubles) {
                ((Float8Vector) target).set(to, doubles.get(at));
            } else {
                target.copyFromSafe(at, to, source);
            }
        }
    }
}
