package io.walsink.shard.memtable;

import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
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

    /** Buffer bytes of the rows so far (sizes follow the value count; appends continue after it). */
    long contentBytes() {
        root.setRowCount(rows);
        return SealedBatches.bufferBytes(root);
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
