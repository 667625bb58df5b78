package io.walsink.shard.memtable;

import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorAppender;

/**
 * Copies input rows into a memtable's open batch, whose schema is the input's plus a tombstone
 * column: one row at a time, or a range at once (flat columns by memory copy).
 */
final class ColumnCopy {
    private ColumnCopy() {}

    /**
     * Appenders for the columns a range can be copied into by memory copy, null for the others:
     * nested ones (lists, structs, maps, unions) keep the row copy, whose handling of children is
     * Arrow's own and well trodden.
     */
    static VectorAppender[] appenders(FieldVector[] columns) {
        VectorAppender[] appenders = new VectorAppender[columns.length];
        for (int c = 0; c < columns.length; c++) {
            FieldVector v = columns[c];
            if (v instanceof BaseFixedWidthVector
                    || v instanceof BaseVariableWidthVector
                    || v instanceof BaseLargeVariableWidthVector) {
                appenders[c] = new VectorAppender(v);
            }
        }
        return appenders;
    }

    /** Copies input row {@code row} to row {@code at} of {@code columns}. */
    static void row(
            List<FieldVector> inputs,
            int row,
            FieldVector[] columns,
            int at,
            int tombstoneColumn,
            int generatedColumn,
            boolean tombstone) {
        for (int c = 0, in = 0; c < columns.length; c++) {
            FieldVector column = columns[c];
            if (c == generatedColumn) {
                continue;
            }
            if (c == tombstoneColumn) {
                ((BitVector) column).setSafe(at, tombstone ? 1 : 0);
            } else {
                column.copyFromSafe(row, at, inputs.get(in++));
            }
        }
    }

    /** Copies {@code count} input rows from {@code from} to {@code columns}, starting at row {@code at}. */
    static void range(
            List<FieldVector> inputs,
            int from,
            int count,
            FieldVector[] columns,
            VectorAppender[] appenders,
            int at,
            int tombstoneColumn,
            int generatedColumn,
            boolean tombstone) {
        for (int c = 0, in = 0; c < columns.length; c++) {
            FieldVector column = columns[c];
            if (c == generatedColumn) {
                continue;
            }
            if (c == tombstoneColumn) {
                BitVector bits = (BitVector) column;
                while (bits.getValueCapacity() < at + count) {
                    bits.reAlloc();
                }
                int value = tombstone ? 1 : 0;
                for (int r = at; r < at + count; r++) {
                    bits.set(r, value);
                }
                continue;
            }
            FieldVector source = inputs.get(in++);
            VectorAppender appender = appenders[c];
            if (appender == null) {
                for (int r = 0; r < count; r++) {
                    column.copyFromSafe(from + r, at + r, source);
                }
            } else {
                // The appender adds after the target's value count, which row appends leave behind.
                column.setValueCount(at);
                if (from == 0 && count == source.getValueCount()) {
                    source.accept(appender, null);
                } else {
                    TransferPair slice = source.getTransferPair(source.getAllocator());
                    slice.splitAndTransfer(from, count);
                    try (ValueVector part = slice.getTo()) {
                        part.accept(appender, null);
                    }
                }
            }
        }
    }
}
