package io.walsink.flink.internal;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.shard.memtable.RowWriter;
import org.apache.arrow.vector.FieldVector;
import org.apache.flink.table.data.RowData;

/**
 * The record being written, as the shard's {@link RowWriter}: Flink's {@link RowData} is copied
 * once, straight into the active memtable, through field writers resolved when the operator
 * opened. One instance is reused for every record.
 */
final class RowDataInput implements RowWriter {
    private final RowDataArrowWriter writer;
    private RowData row;

    RowDataInput(RowDataArrowWriter writer) {
        this.writer = writer;
    }

    RowDataInput of(RowData current) {
        this.row = current;
        return this;
    }

    @Override
    public void writeRow(FieldVector[] columns, int at) {
        writer.writeInPlace(row, columns, at); // the memtable guarantees room (RowWriter)
    }
}
