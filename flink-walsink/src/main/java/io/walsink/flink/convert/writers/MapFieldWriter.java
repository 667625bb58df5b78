package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;

/**
 * MAP into Map: a list of (key, value) entries, appended after the previous row's as a List
 * column's elements are, so rows must be written in increasing index order. Keys must not be null.
 */
final class MapFieldWriter extends FieldWriter {
    private final FieldWriter key;
    private final FieldWriter value;

    MapFieldWriter(String column, boolean nullable, FieldWriter key, FieldWriter value) {
        super(column, nullable);
        this.key = key;
        this.value = value;
    }

    @Override
    void setField(FieldVector v, int index, RowData row, int pos) {
        set((MapVector) v, index, row.getMap(pos));
    }

    @Override
    void setElement(FieldVector v, int index, ArrayData array, int pos) {
        set((MapVector) v, index, array.getMap(pos));
    }

    private void set(MapVector v, int index, MapData map) {
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        int size = map.size();
        for (int i = 0; i < size; i++) {
            if (keys.isNullAt(i)) {
                throw new ColumnValueException(column, "a map key is null; Lance maps have no null keys");
            }
        }
        int start = v.startNewValue(index);
        StructVector entries = (StructVector) v.getDataVector();
        FieldVector keyVector = (FieldVector) entries.getChildByOrdinal(0);
        FieldVector valueVector = (FieldVector) entries.getChildByOrdinal(1);
        for (int i = 0; i < size; i++) {
            entries.setIndexDefined(start + i);
            key.writeElement(keyVector, start + i, keys, i);
            value.writeElement(valueVector, start + i, values, i);
        }
        v.endValue(index, size);
    }
}
