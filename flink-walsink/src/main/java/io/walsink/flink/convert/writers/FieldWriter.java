package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * Writes one column's values into an Arrow vector, resolved once per column so that the per-row
 * path is a virtual call and a {@code setSafe}, with no type switch. A value comes either from a
 * row field or from an array element (nested lists), which Flink reads through different
 * interfaces; each writer implements both.
 */
abstract class FieldWriter {
    /** The column path used in errors: {@code vec} or {@code vec[]} for its elements. */
    final String column;

    private final boolean nullable;

    FieldWriter(String column, boolean nullable) {
        this.column = column;
        this.nullable = nullable;
    }

    final void writeField(FieldVector vector, int index, RowData row, int pos) {
        if (row.isNullAt(pos)) {
            writeNull(vector, index);
        } else {
            setField(vector, index, row, pos);
        }
    }

    /**
     * As {@link #writeField}, for a vector the caller vouches has room for {@code index} when it
     * is fixed-width: writers of fixed-width values may then skip the capacity check of
     * {@code setSafe}, which is most of a value's cost in a wide row of numbers.
     */
    final void writeFieldInPlace(FieldVector vector, int index, RowData row, int pos) {
        if (row.isNullAt(pos)) {
            writeNull(vector, index);
        } else {
            setFieldInPlace(vector, index, row, pos);
        }
    }

    /** As {@link #writeFieldInPlace}, with the field's null bit already read by the caller. */
    final void writeFieldInPlace(FieldVector vector, int index, RowData row, int pos, boolean isNull) {
        if (isNull) {
            writeNull(vector, index);
        } else {
            setFieldInPlace(vector, index, row, pos);
        }
    }

    final void writeElement(FieldVector vector, int index, ArrayData array, int pos) {
        if (array.isNullAt(pos)) {
            writeNull(vector, index);
        } else {
            setElement(vector, index, array, pos);
        }
    }

    private void writeNull(FieldVector vector, int index) {
        if (!nullable) {
            // Arrow would accept it; the table's readers (and the primary-key index) would not.
            throw new ColumnValueException(column, "null value in a NOT NULL column");
        }
        setNullValue(vector, index);
    }

    /**
     * Stores a null at {@code index}; a struct also nulls its children there. A fixed-width
     * value's bytes are zeroed too: a memtable's batches are not zeroed when allocated, and the
     * same rows should make the same bytes.
     */
    void setNullValue(FieldVector vector, int index) {
        vector.setNull(index);
        if (vector instanceof BaseFixedWidthVector fixed && fixed.getTypeWidth() > 0) {
            fixed.getDataBuffer().setZero((long) index * fixed.getTypeWidth(), fixed.getTypeWidth());
        }
    }

    /** Writes the non-null field {@code pos} of {@code row}. */
    abstract void setField(FieldVector vector, int index, RowData row, int pos);

    /** {@link #setField} into a vector with room for {@code index} (see {@link #writeFieldInPlace}). */
    void setFieldInPlace(FieldVector vector, int index, RowData row, int pos) {
        setField(vector, index, row, pos);
    }

    /** Writes the non-null element {@code pos} of {@code array}. */
    abstract void setElement(FieldVector vector, int index, ArrayData array, int pos);
}
