package io.walsink.flink.convert.writers;

import io.walsink.flink.convert.ColumnValueException;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;

/** Writers for strings and byte strings; both go to Arrow as raw bytes without re-encoding. */
final class BytesFieldWriters {
    private BytesFieldWriters() {}

    /** CHAR/VARCHAR into Utf8 or LargeUtf8: Flink's StringData already holds UTF-8. */
    static final class StringWriter extends FieldWriter {
        StringWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            set((VariableWidthFieldVector) v, index, row.getString(pos));
        }

        /** Appends a binary row's string from the row's memory when it follows the last value set. */
        @Override
        void setFieldInPlace(FieldVector v, int index, RowData row, int pos) {
            if (row instanceof BinaryRowData binary
                    && v instanceof BaseVariableWidthVector vector
                    && vector.getLastSet() == index - 1
                    && InPlaceStores.appendBinaryRowString(vector, index, binary, pos)) {
                return;
            }
            StringData value = row.getString(pos);
            if (v instanceof BaseVariableWidthVector vector
                    && vector.getLastSet() == index - 1
                    && value instanceof BinaryStringData binary) {
                MemorySegment[] segments = binary.getSegments();
                if (segments.length == 1 && !segments[0].isOffHeap()) {
                    InPlaceStores.appendBytes(
                            vector, index, segments[0].getArray(), binary.getOffset(), binary.getSizeInBytes());
                    return;
                }
            }
            set((VariableWidthFieldVector) v, index, value);
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            set((VariableWidthFieldVector) v, index, array.getString(pos));
        }

        /**
         * A string of a binary row (what crosses a network shuffle) is copied from the row's
         * memory as it is; {@code toBytes()} would copy it to a new array first.
         */
        private static void set(VariableWidthFieldVector v, int index, StringData value) {
            if (value instanceof BinaryStringData binary) {
                MemorySegment[] segments = binary.getSegments();
                if (segments.length == 1 && !segments[0].isOffHeap()) {
                    v.setSafe(index, segments[0].getArray(), binary.getOffset(), binary.getSizeInBytes());
                    return;
                }
            }
            v.setSafe(index, value.toBytes());
        }
    }

    /** BINARY/VARBINARY into Binary or LargeBinary. */
    static final class BinaryWriter extends FieldWriter {
        BinaryWriter(String column, boolean nullable) {
            super(column, nullable);
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            ((VariableWidthFieldVector) v).setSafe(index, row.getBinary(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            ((VariableWidthFieldVector) v).setSafe(index, array.getBinary(pos));
        }
    }

    /** BINARY/VARBINARY into FixedSizeBinary(w): every value must be exactly w bytes. */
    static final class FixedBinaryWriter extends FieldWriter {
        private final int width;

        FixedBinaryWriter(String column, boolean nullable, int width) {
            super(column, nullable);
            this.width = width;
        }

        @Override
        void setField(FieldVector v, int index, RowData row, int pos) {
            set((FixedSizeBinaryVector) v, index, row.getBinary(pos));
        }

        @Override
        void setElement(FieldVector v, int index, ArrayData array, int pos) {
            set((FixedSizeBinaryVector) v, index, array.getBinary(pos));
        }

        private void set(FixedSizeBinaryVector v, int index, byte[] value) {
            if (value.length != width) {
                throw new ColumnValueException(
                        column, "value has " + value.length + " bytes, the column is FixedSizeBinary(" + width + ")");
            }
            v.setSafe(index, value);
        }
    }
}
