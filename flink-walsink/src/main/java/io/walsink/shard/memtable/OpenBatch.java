package io.walsink.shard.memtable;

import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DensityAwareVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorAppender;

/**
 * The Arrow batch a memtable is filling: its vectors resolved once (columns, range appenders, key
 * columns), how many rows it holds, and how many rows every fixed-width vector has room for, so
 * that a row writer may use {@code set} where {@code setSafe} would check capacity per value.
 */
final class OpenBatch implements AutoCloseable {
    private final VectorSchemaRoot root;
    private final FieldVector[] columns;
    private final VectorAppender[] appenders; // per column; null where rows are copied one by one
    private final FieldVector[] keyColumns; // null without a key
    private final boolean flat; // every column sized without a pass over the vectors (contentBytes)
    private int fixedRoom; // rows every fixed-width vector has room for; measured at the first row
    private int rows;

    /**
     * A batch of {@code schema} with room for about {@code capacity} rows.
     *
     * @param bytesPerValue per column, the value bytes a variable-width column is sized for (0:
     *     Arrow's default of 8), so that data buffers are not doubled and copied while filling
     */
    OpenBatch(Schema schema, BufferAllocator allocator, int capacity, double[] bytesPerValue, PrimaryKeyEncoder keys) {
        root = VectorSchemaRoot.create(schema, allocator);
        List<FieldVector> vectors = root.getFieldVectors();
        for (int c = 0; c < vectors.size(); c++) {
            FieldVector v = vectors.get(c);
            if (v instanceof DensityAwareVector sized && bytesPerValue[c] > 0) {
                sized.setInitialCapacity(capacity, bytesPerValue[c]);
            } else {
                v.setInitialCapacity(capacity);
            }
        }
        for (FieldVector v : vectors) {
            if (v instanceof BaseFixedWidthVector fixed && fixed.getTypeWidth() > 0 && capacity > 0) {
                UnzeroedValues.allocate(fixed, capacity);
            } else {
                v.allocateNew();
            }
        }
        columns = root.getFieldVectors().toArray(new FieldVector[0]);
        flat = flat(columns);
        appenders = ColumnCopy.appenders(columns);
        keyColumns = keys == null ? null : keys.keyColumns(root);
    }

    FieldVector[] columns() {
        return columns;
    }

    private FieldVector[] inputColumns; // columns() without the generated row key, built at first use

    /**
     * Copies input row {@code row} after the batch's rows ({@link ColumnCopy#row}) and gives it its
     * generated row key, if any, as row {@code sealedRows + rows()} of the memtable.
     */
    void copyRow(
            List<FieldVector> inputs,
            int row,
            int tombstoneColumn,
            boolean tombstone,
            RowKeys keys,
            long gen,
            long sealedRows) {
        ColumnCopy.row(inputs, row, columns, rows, tombstoneColumn, keys.column(), tombstone);
        keys.fill(this, rows, 1, gen, sealedRows + rows);
    }

    /** As {@link #copyRow} for {@code count} rows from {@code from}, a range of each column at once. */
    void copyRange(
            List<FieldVector> inputs,
            int from,
            int count,
            int tombstoneColumn,
            boolean tombstone,
            RowKeys keys,
            long gen,
            long sealedRows) {
        ColumnCopy.range(inputs, from, count, columns, appenders, rows, tombstoneColumn, keys.column(), tombstone);
        keys.fill(this, rows, count, gen, sealedRows + rows);
    }

    /** {@link #columns()} without column {@code generated}: where a row writer writes the users' values. */
    FieldVector[] inputColumns(int generated) {
        if (inputColumns == null) {
            inputColumns = new FieldVector[columns.length - 1];
            for (int c = 0, i = 0; c < columns.length; c++) {
                if (c != generated) {
                    inputColumns[i++] = columns[c];
                }
            }
        }
        return inputColumns;
    }

    VectorAppender[] appenders() {
        return appenders;
    }

    FieldVector[] keyColumns() {
        return keyColumns;
    }

    int rows() {
        return rows;
    }

    void added(int count) {
        rows += count;
    }

    /**
     * Makes every fixed-width vector hold at least row {@code at}, and every variable-width one
     * its validity bit and offsets (their values' bytes are checked per value); they only grow.
     */
    void roomFor(int at) {
        if (at < fixedRoom) {
            return;
        }
        int room = Integer.MAX_VALUE;
        for (FieldVector v : columns) {
            if (v instanceof BaseFixedWidthVector fixed) {
                while (fixed.getValueCapacity() <= at) {
                    fixed.reAlloc();
                }
                room = Math.min(room, fixed.getValueCapacity());
            } else if (v instanceof BaseVariableWidthVector variable) {
                while (variable.getValueCapacity() <= at) {
                    variable.reallocValidityAndOffsetBuffers();
                }
                room = Math.min(room, variable.getValueCapacity());
            }
        }
        fixedRoom = room;
    }

    /**
     * Sets row {@code at} of a bit column that has room for it ({@link #roomFor}), valid, at the
     * buffers' addresses: {@code setSafe}'s checked reads and writes were 3% of the row path.
     */
    static void putBit(BitVector v, int at, boolean value) {
        int mask = 1 << (at & 7);
        long data = v.getDataBufferAddress() + (at >>> 3);
        byte bits = MemoryUtil.getByte(data);
        MemoryUtil.putByte(data, (byte) (value ? bits | mask : bits & ~mask));
        long validity = v.getValidityBufferAddress() + (at >>> 3);
        MemoryUtil.putByte(validity, (byte) (MemoryUtil.getByte(validity) | mask));
    }

    /**
     * Buffer bytes of the rows so far: what {@link SealedBatches#bufferBytes} will count once the
     * batch is sealed. Flat columns are sized from the row count and, for strings and bytes, the
     * end of the last value set; other columns need the row count set first, a pass over every
     * vector, which cost a twenty-fifth of the row path when it ran every 64 rows.
     */
    long contentBytes() {
        if (!flat) {
            root.setRowCount(rows);
            return SealedBatches.bufferBytes(root);
        }
        if (rows == 0) {
            return 0;
        }
        long validity = BitVectorHelper.getValidityBufferSize(rows);
        long sum = 0;
        for (FieldVector v : columns) {
            if (v instanceof BitVector) {
                sum += 2 * validity;
            } else if (v instanceof BaseFixedWidthVector fixed) {
                sum += validity + (long) rows * fixed.getTypeWidth();
            } else {
                BaseVariableWidthVector variable = (BaseVariableWidthVector) v;
                // Rows after the last value set are null: their offsets repeat its end. A value set
                // past the rows is a failed row's, half written: the rows end where it starts.
                int end = Math.min(variable.getLastSet() + 1, rows);
                long bytes = end == 0
                        ? 0
                        : MemoryUtil.getInt(
                                variable.getOffsetBufferAddress() + (long) end * BaseVariableWidthVector.OFFSET_WIDTH);
                sum += validity + (long) (rows + 1) * BaseVariableWidthVector.OFFSET_WIDTH + bytes;
            }
        }
        return sum;
    }

    /** Whether every column is sized by {@link #contentBytes} without setting the row count. */
    private static boolean flat(FieldVector[] columns) {
        for (FieldVector v : columns) {
            boolean fixed = v instanceof BaseFixedWidthVector f && (f instanceof BitVector || f.getTypeWidth() > 0);
            if (!fixed && !(v instanceof BaseVariableWidthVector)) {
                return false;
            }
        }
        return true;
    }

    /** Hands the batch over as a sealed one; this object is done with it. */
    VectorSchemaRoot seal() {
        root.setRowCount(rows);
        return root;
    }

    @Override
    public void close() {
        root.close();
    }
}
