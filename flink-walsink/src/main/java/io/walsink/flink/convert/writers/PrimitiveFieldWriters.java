package io.walsink.flink.convert.writers;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/** Writers for the fixed-width Flink primitives, each read unboxed from RowData / ArrayData. */
final class PrimitiveFieldWriters {
    private PrimitiveFieldWriters() {}

    static final class BooleanWriter extends FieldWriter {
        BooleanWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((BitVector) v).setSafe(index, row.getBoolean(pos) ? 1 : 0);
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            ((BitVector) v).set(index, row.getBoolean(pos) ? 1 : 0);
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((BitVector) v).setSafe(index, array.getBoolean(pos) ? 1 : 0);
        }
    }

    static final class TinyIntWriter extends FieldWriter {
        TinyIntWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((TinyIntVector) v).setSafe(index, row.getByte(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            ((TinyIntVector) v).set(index, row.getByte(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((TinyIntVector) v).setSafe(index, array.getByte(pos));
        }
    }

    static final class SmallIntWriter extends FieldWriter {
        SmallIntWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((SmallIntVector) v).setSafe(index, row.getShort(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            ((SmallIntVector) v).set(index, row.getShort(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((SmallIntVector) v).setSafe(index, array.getShort(pos));
        }
    }

    static final class IntWriter extends FieldWriter {
        IntWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((IntVector) v).setSafe(index, row.getInt(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            InPlaceStores.putInt((IntVector) v, index, row.getInt(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((IntVector) v).setSafe(index, array.getInt(pos));
        }
    }

    static final class BigIntWriter extends FieldWriter {
        BigIntWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((BigIntVector) v).setSafe(index, row.getLong(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            InPlaceStores.putLong((BigIntVector) v, index, row.getLong(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((BigIntVector) v).setSafe(index, array.getLong(pos));
        }
    }

    static final class FloatWriter extends FieldWriter {
        FloatWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((Float4Vector) v).setSafe(index, row.getFloat(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            InPlaceStores.putInt((Float4Vector) v, index, Float.floatToRawIntBits(row.getFloat(pos)));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((Float4Vector) v).setSafe(index, array.getFloat(pos));
        }
    }

    static final class DoubleWriter extends FieldWriter {
        DoubleWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((Float8Vector) v).setSafe(index, row.getDouble(pos));
        }

        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            InPlaceStores.putLong((Float8Vector) v, index, Double.doubleToRawLongBits(row.getDouble(pos)));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((Float8Vector) v).setSafe(index, array.getDouble(pos));
        }
    }
}
