package io.walsink.flink.convert;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * One Arrow column copied whole to the heap as a Flink column, for rows over a batch
 * ({@code ColumnarRowData}): a batch costs a few bulk copies instead of an object per value, and
 * the copy belongs to the rows alone, so a row stays valid after the Arrow batch is reloaded or
 * freed, as a {@code GenericRowData} would. BIGINT, INT-like and string or binary columns are
 * primitive arrays (strings one byte array per batch), a ROW its fields' columns; other types
 * hold the objects {@link FieldReader} makes, as the row copy did.
 */
final class HeapColumns {
    private HeapColumns() {}

    /** Rows {@code [0, rows)} of {@code vector}, whose values have Flink type {@code type}. */
    static ColumnVector copy(FieldVector vector, LogicalType type, FieldReader reader, int rows) {
        boolean[] nulls = nulls(vector, rows);
        switch (type.getTypeRoot()) {
            case BIGINT:
                return longs(vector, reader, rows, nulls);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return ints(vector, reader, rows, nulls);
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
                return vector instanceof BaseVariableWidthVector v
                        ? BytesColumn.of(v, rows, nulls)
                        : BytesColumn.of(vector, reader, rows, nulls);
            case ROW:
                return StructColumn.of((StructVector) vector, (RowType) type, rows, nulls);
            default:
                return ObjectColumn.of(vector, reader, rows, nulls);
        }
    }

    /** Null flags, or null when no row is null. */
    private static boolean[] nulls(FieldVector vector, int rows) {
        if (vector.getNullCount() == 0) {
            return null;
        }
        boolean[] nulls = new boolean[rows];
        for (int i = 0; i < rows; i++) {
            nulls[i] = vector.isNull(i);
        }
        return nulls;
    }

    private static LongColumn longs(FieldVector vector, FieldReader reader, int rows, boolean[] nulls) {
        long[] values = new long[rows];
        for (int i = 0; i < rows; i++) {
            if (nulls == null || !nulls[i]) {
                values[i] = vector instanceof BigIntVector v ? v.get(i) : (Long) reader.read(vector, i);
            }
        }
        return new LongColumn(values, nulls);
    }

    private static IntColumn ints(FieldVector vector, FieldReader reader, int rows, boolean[] nulls) {
        int[] values = new int[rows];
        for (int i = 0; i < rows; i++) {
            if (nulls == null || !nulls[i]) {
                if (vector instanceof IntVector v) {
                    values[i] = v.get(i);
                } else if (vector instanceof DateDayVector v) {
                    values[i] = v.get(i);
                } else {
                    values[i] = (Integer) reader.read(vector, i);
                }
            }
        }
        return new IntColumn(values, nulls);
    }

    private abstract static class Column implements ColumnVector {
        private final boolean[] nulls;

        Column(boolean[] nulls) {
            this.nulls = nulls;
        }

        @Override
        public boolean isNullAt(int i) {
            return nulls != null && nulls[i];
        }
    }

    private static final class LongColumn extends Column implements LongColumnVector {
        private final long[] values;

        LongColumn(long[] values, boolean[] nulls) {
            super(nulls);
            this.values = values;
        }

        @Override
        public long getLong(int i) {
            return values[i];
        }
    }

    private static final class IntColumn extends Column implements IntColumnVector {
        private final int[] values;

        IntColumn(int[] values, boolean[] nulls) {
            super(nulls);
            this.values = values;
        }

        @Override
        public int getInt(int i) {
            return values[i];
        }
    }

    /** Variable-width values in one array: value {@code i} is {@code data[offsets[i], offsets[i + 1])}. */
    private static final class BytesColumn extends Column implements BytesColumnVector {
        private final byte[] data;
        private final int[] offsets;

        private BytesColumn(byte[] data, int[] offsets, boolean[] nulls) {
            super(nulls);
            this.data = data;
            this.offsets = offsets;
        }

        /** Straight from Arrow's offsets and data buffers: two bulk copies. */
        static BytesColumn of(BaseVariableWidthVector vector, int rows, boolean[] nulls) {
            int[] offsets = new int[rows + 1];
            if (rows == 0) {
                return new BytesColumn(new byte[0], offsets, nulls);
            }
            ArrowBuf offsetBuffer = vector.getOffsetBuffer();
            int first = offsetBuffer.getInt(0);
            for (int i = 0; i <= rows; i++) {
                offsets[i] = offsetBuffer.getInt((long) i * BaseVariableWidthVector.OFFSET_WIDTH) - first;
            }
            byte[] data = new byte[offsets[rows]];
            vector.getDataBuffer().getBytes(first, data, 0, data.length);
            return new BytesColumn(data, offsets, nulls);
        }

        /** Through the value reader, for the other layouts (large and fixed-size binary). */
        static BytesColumn of(FieldVector vector, FieldReader reader, int rows, boolean[] nulls) {
            byte[][] values = new byte[rows][];
            int[] offsets = new int[rows + 1];
            for (int i = 0; i < rows; i++) {
                if (nulls == null || !nulls[i]) {
                    Object value = reader.read(vector, i);
                    values[i] = value instanceof StringData s ? s.toBytes() : (byte[]) value;
                }
                offsets[i + 1] = offsets[i] + (values[i] == null ? 0 : values[i].length);
            }
            byte[] data = new byte[offsets[rows]];
            for (int i = 0; i < rows; i++) {
                if (values[i] != null) {
                    System.arraycopy(values[i], 0, data, offsets[i], values[i].length);
                }
            }
            return new BytesColumn(data, offsets, nulls);
        }

        @Override
        public Bytes getBytes(int i) {
            return new Bytes(data, offsets[i], offsets[i + 1] - offsets[i]);
        }
    }

    /** A struct's children copied as columns of their own; a row of it is a row over them. */
    private static final class StructColumn extends Column implements RowColumnVector {
        private final VectorizedColumnBatch fields;

        private StructColumn(VectorizedColumnBatch fields, boolean[] nulls) {
            super(nulls);
            this.fields = fields;
        }

        static StructColumn of(StructVector vector, RowType type, int rows, boolean[] nulls) {
            ColumnVector[] children = new ColumnVector[type.getFieldCount()];
            for (int c = 0; c < children.length; c++) {
                FieldVector child = (FieldVector) vector.getChildByOrdinal(c);
                children[c] = copy(child, type.getTypeAt(c), FieldReaders.create(child.getField()), rows);
            }
            VectorizedColumnBatch fields = new VectorizedColumnBatch(children);
            fields.setNumRows(rows);
            return new StructColumn(fields, nulls);
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return new ColumnarRowData(fields, i);
        }
    }

    /** The objects a {@link FieldReader} makes, for the types read less often. */
    private static final class ObjectColumn extends Column
            implements BooleanColumnVector,
                    ByteColumnVector,
                    ShortColumnVector,
                    FloatColumnVector,
                    DoubleColumnVector,
                    DecimalColumnVector,
                    TimestampColumnVector,
                    ArrayColumnVector,
                    MapColumnVector {
        private final Object[] values;

        private ObjectColumn(Object[] values, boolean[] nulls) {
            super(nulls);
            this.values = values;
        }

        static ObjectColumn of(FieldVector vector, FieldReader reader, int rows, boolean[] nulls) {
            Object[] values = new Object[rows];
            for (int i = 0; i < rows; i++) {
                if (nulls == null || !nulls[i]) {
                    values[i] = reader.read(vector, i);
                }
            }
            return new ObjectColumn(values, nulls);
        }

        @Override
        public boolean getBoolean(int i) {
            return (Boolean) values[i];
        }

        @Override
        public byte getByte(int i) {
            return (Byte) values[i];
        }

        @Override
        public short getShort(int i) {
            return (Short) values[i];
        }

        @Override
        public float getFloat(int i) {
            return (Float) values[i];
        }

        @Override
        public double getDouble(int i) {
            return (Double) values[i];
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            return (DecimalData) values[i];
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            return (TimestampData) values[i];
        }

        @Override
        public ArrayData getArray(int i) {
            return (ArrayData) values[i];
        }

        @Override
        public MapData getMap(int i) {
            return (MapData) values[i];
        }
    }
}
