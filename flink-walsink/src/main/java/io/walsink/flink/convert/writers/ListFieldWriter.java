package io.walsink.flink.convert.writers;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * ARRAY into List: elements go to the child vector after the previous row's, so rows must be
 * written in increasing index order (as a batch is filled).
 */
final class ListFieldWriter extends FieldWriter {
    private final FieldWriter element;

    ListFieldWriter(String column, boolean nullable, FieldWriter element) {
        super(column, nullable);
        this.element = element;
    }

    @Override
    void setField(FieldVector v, int index, RowData row, int pos) {
        set((ListVector) v, index, row.getArray(pos));
    }

    @Override
    void setElement(FieldVector v, int index, ArrayData array, int pos) {
        set((ListVector) v, index, array.getArray(pos));
    }

    private void set(ListVector v, int index, ArrayData array) {
        int start = v.startNewValue(index);
        FieldVector child = v.getDataVector();
        int size = array.size();
        for (int i = 0; i < size; i++) {
            element.writeElement(child, start + i, array, i);
        }
        v.endValue(index, size);
    }
}
