package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * ARRAY into FixedSizeList(n), the layout of embedding vectors: Flink has no fixed-size array,
 * so the length is checked per value and a wrong one fails naming the column and the length.
 */
final class FixedSizeListFieldWriter extends FieldWriter {
    private final FieldWriter element;
    private final int listSize;

    FixedSizeListFieldWriter(String column, boolean nullable, FieldWriter element, int listSize) {
        super(column, nullable);
        this.element = element;
        this.listSize = listSize;
    }

    @Override
    void setField(FieldVector v, int index, RowData row, int pos) {
        set((FixedSizeListVector) v, index, row.getArray(pos));
    }

    @Override
    void setElement(FieldVector v, int index, ArrayData array, int pos) {
        set((FixedSizeListVector) v, index, array.getArray(pos));
    }

    private void set(FixedSizeListVector v, int index, ArrayData array) {
        int size = array.size();
        if (size != listSize) {
            throw new ColumnValueException(
                    column, "array has " + size + " elements, the column is a fixed-size list of " + listSize);
        }
        int start = v.startNewValue(index);
        FieldVector child = v.getDataVector();
        for (int i = 0; i < size; i++) {
            element.writeElement(child, start + i, array, i);
        }
    }
}
