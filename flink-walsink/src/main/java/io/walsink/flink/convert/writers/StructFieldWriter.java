package io.walsink.flink.convert.writers;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * ROW into Struct: each field of the nested row goes to the child vector of the same name, at the
 * same index. A null row leaves its children null there too, so that no reader sees a value under
 * a null struct.
 */
final class StructFieldWriter extends FieldWriter {
    private final FieldWriter[] fields;
    private final int[] rowPositions; // for each child vector, the field's position in the Flink row
    private final int arity;

    StructFieldWriter(String column, boolean nullable, FieldWriter[] fields, int[] rowPositions, int arity) {
        super(column, nullable);
        this.fields = fields;
        this.rowPositions = rowPositions;
        this.arity = arity;
    }

    @Override
    void setField(FieldVector v, int index, RowData row, int pos) {
        set((StructVector) v, index, row.getRow(pos, arity));
    }

    @Override
    void setElement(FieldVector v, int index, ArrayData array, int pos) {
        set((StructVector) v, index, array.getRow(pos, arity));
    }

    private void set(StructVector v, int index, RowData value) {
        v.setIndexDefined(index);
        for (int c = 0; c < fields.length; c++) {
            fields[c].writeField((FieldVector) v.getChildByOrdinal(c), index, value, rowPositions[c]);
        }
    }

    @Override
    void setNullValue(FieldVector v, int index) {
        StructVector struct = (StructVector) v;
        struct.setNull(index);
        for (int c = 0; c < fields.length; c++) {
            FieldVector child = (FieldVector) struct.getChildByOrdinal(c);
            if (child.getField().isNullable()) {
                fields[c].setNullValue(child, index);
            }
        }
    }
}
