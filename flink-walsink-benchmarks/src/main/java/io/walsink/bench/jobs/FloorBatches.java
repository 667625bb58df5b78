package io.walsink.bench.jobs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Arrow batches of q1's columns, allocated once at full size and refilled by raw stores at their
 * buffers' addresses: the floor's copy of binary rows into Arrow, and its gather of each key's
 * newest row. Nothing here grows a vector or goes through Arrow's per-value setters, and validity
 * is built 64 rows at a time and stored as whole words.
 */
final class FloorBatches implements AutoCloseable {
    static final int BATCH = 8192;
    /** Bytes of string data reserved per row; a batch of longer strings moves its data buffer once. */
    private static final int NAME_BYTES_PER_ROW = 16;

    static final Schema SCHEMA = schema();
    /** The BIGINT columns in row order: id, then v1..v10 (the string is column 1). */
    private static final int[] LONG_COLUMNS = longColumns();

    private static final int ARITY = 2 + Q1Rows.VALUES;
    /** Null bits of a q1 row: 8 header bits and 12 fields fit one word, which the copy reads at once. */
    private static final int NULL_BYTES = BinaryRowData.calculateBitSetWidthInBytes(ARITY);

    private static final long INLINE_MARK = 0x80L << 56;
    /** A binary row's null bits start after its 8-bit header. */
    private static final int HEADER_BITS = 8;

    private final List<VectorSchemaRoot> roots = new ArrayList<>();

    FloorBatches(BufferAllocator allocator, long rows) {
        if (NULL_BYTES != 8) {
            throw new IllegalStateException("q1's null bits take " + NULL_BYTES + " bytes, the copy reads 8");
        }
        for (long start = 0; start < rows; start += BATCH) {
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
            for (FieldVector v : root.getFieldVectors()) {
                v.setInitialCapacity(BATCH);
                if (v instanceof VarCharVector name) {
                    name.allocateNew((long) BATCH * NAME_BYTES_PER_ROW, BATCH);
                } else {
                    v.allocateNew();
                }
            }
            roots.add(root);
        }
    }

    static Schema schema() {
        List<Field> fields = new ArrayList<>();
        fields.add(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null));
        fields.add(new Field("name", FieldType.nullable(new ArrowType.Utf8()), null));
        for (int j = 1; j <= Q1Rows.VALUES; j++) {
            fields.add(new Field("v" + j, FieldType.nullable(new ArrowType.Int(64, true)), null));
        }
        return new Schema(fields);
    }

    private static int[] longColumns() {
        int[] columns = new int[1 + Q1Rows.VALUES];
        for (int c = 1; c < columns.length; c++) {
            columns[c] = c + 1;
        }
        return columns;
    }

    List<VectorSchemaRoot> roots() {
        return roots;
    }

    VectorSchemaRoot root(int batch) {
        return roots.get(batch);
    }

    /**
     * Copies binary rows {@code from} to {@code from + n} (one heap segment each) into batch
     * {@code batch}, row by row: each row's null bits are read as one word, every BIGINT stored
     * without a branch (a null field of a binary row holds 0), and each column's validity gathered
     * in a word per 64 rows.
     */
    void copy(int batch, BinaryRowData[] rows, int from, int n) {
        VectorSchemaRoot root = roots.get(batch);
        long[] data = new long[ARITY];
        long[] validity = new long[ARITY];
        addresses(root, data, validity);
        VarCharVector name = (VarCharVector) root.getVector(1);
        long offsets = name.getOffsetBufferAddress();
        long names = name.getDataBufferAddress();
        long capacity = name.getDataBuffer().capacity();
        int end = 0;
        MemoryUtil.putInt(offsets, 0);
        long[] bits = new long[ARITY];
        for (int word = 0; word * 64 < n; word++) {
            Arrays.fill(bits, 0);
            int last = Math.min(n, word * 64 + 64);
            for (int r = word * 64; r < last; r++) {
                BinaryRowData row = rows[from + r];
                byte[] bytes = row.getSegments()[0].getArray();
                int base = row.getOffset();
                long valid = ~(MemoryUtil.getLong(bytes, base) >>> HEADER_BITS); // NULL_BYTES is 8
                for (int c : LONG_COLUMNS) {
                    bits[c] |= ((valid >>> c) & 1) << (r & 63);
                    MemoryUtil.putLong(data[c] + 8L * r, MemoryUtil.getLong(bytes, base + NULL_BYTES + 8 * c));
                }
                bits[1] |= ((valid >>> 1) & 1) << (r & 63);
                if (((valid >>> 1) & 1) != 0) {
                    int field = base + NULL_BYTES + 8;
                    long offsetAndLength = MemoryUtil.getLong(bytes, field);
                    int at;
                    int length;
                    if ((offsetAndLength & INLINE_MARK) == 0) {
                        at = base + (int) (offsetAndLength >>> 32);
                        length = (int) offsetAndLength;
                    } else {
                        at = field; // up to 7 bytes inside the field itself (little-endian)
                        length = (int) ((offsetAndLength >>> 56) & 0x7F);
                    }
                    if (end + length > capacity) {
                        name.reallocDataBuffer(Math.max(2 * capacity, end + length));
                        names = name.getDataBufferAddress();
                        offsets = name.getOffsetBufferAddress();
                        capacity = name.getDataBuffer().capacity();
                    }
                    MemoryUtil.copyToMemory(bytes, at, names + end, length);
                    end += length;
                }
                MemoryUtil.putInt(offsets + 4L * (r + 1), end);
            }
            for (int c = 0; c < ARITY; c++) {
                MemoryUtil.putLong(validity[c] + 8L * word, bits[c]);
            }
        }
        name.setLastSet(n - 1);
        root.setRowCount(n);
    }

    /**
     * Appends the rows of {@code from} whose bit in {@code superseded} is clear (bit {@code first +
     * r} for row r) after the {@code out} rows appended so far, sealing each batch it fills;
     * returns the new count. Addresses are read once per batch, not per row.
     */
    int appendSurvivors(VectorSchemaRoot from, long first, long[] superseded, int out) {
        long[] fromData = new long[ARITY];
        long[] fromValidity = new long[ARITY];
        long[] toData = new long[ARITY];
        long[] toValidity = new long[ARITY];
        addresses(from, fromData, fromValidity);
        VarCharVector fromName = (VarCharVector) from.getVector(1);
        long fromOffsets = fromName.getOffsetBufferAddress();
        long fromNames = fromName.getDataBufferAddress();
        int batch = -1;
        VarCharVector name = null;
        long offsets = 0;
        for (int r = 0; r < from.getRowCount(); r++) {
            long p = first + r;
            if (((superseded[(int) (p >>> 6)] >>> p) & 1) != 0) {
                continue;
            }
            int to = out % BATCH;
            if (batch != out / BATCH) {
                batch = out / BATCH;
                addresses(roots.get(batch), toData, toValidity);
                name = (VarCharVector) roots.get(batch).getVector(1);
                offsets = name.getOffsetBufferAddress();
                MemoryUtil.putInt(offsets, 0);
            }
            for (int c : LONG_COLUMNS) {
                MemoryUtil.putLong(toData[c] + 8L * to, MemoryUtil.getLong(fromData[c] + 8L * r));
            }
            for (int c = 0; c < ARITY; c++) {
                copyBit(fromValidity[c], r, toValidity[c], to);
            }
            int start = MemoryUtil.getInt(fromOffsets + 4L * r);
            int length = MemoryUtil.getInt(fromOffsets + 4L * (r + 1)) - start;
            int end = MemoryUtil.getInt(offsets + 4L * to);
            if (end + length > name.getDataBuffer().capacity()) {
                name.reallocDataBuffer(Math.max(2 * name.getDataBuffer().capacity(), end + length));
            }
            MemoryUtil.copyMemory(fromNames + start, name.getDataBufferAddress() + end, length);
            MemoryUtil.putInt(offsets + 4L * (to + 1), end + length);
            out++;
            if (to == BATCH - 1) {
                seal(batch, BATCH);
            }
        }
        return out;
    }

    private static void addresses(VectorSchemaRoot root, long[] data, long[] validity) {
        for (int c = 0; c < ARITY; c++) {
            validity[c] = root.getVector(c).getValidityBufferAddress();
            data[c] = c == 1 ? 0 : root.getVector(c).getDataBufferAddress();
        }
    }

    /** Ends a batch that {@link #appendSurvivors} filled with {@code n} rows. */
    void seal(int batch, int n) {
        VectorSchemaRoot root = roots.get(batch);
        ((VarCharVector) root.getVector(1)).setLastSet(n - 1);
        root.setRowCount(n);
    }

    private static void copyBit(long from, int fromRow, long to, int toRow) {
        long word = to + 8L * (toRow >>> 6);
        long mask = 1L << (toRow & 63);
        long bits = (toRow & 63) == 0 ? 0 : MemoryUtil.getLong(word) & (mask - 1);
        long set = (MemoryUtil.getLong(from + 8L * (fromRow >>> 6)) >>> (fromRow & 63)) & 1;
        MemoryUtil.putLong(word, set == 0 ? bits : bits | mask);
    }

    @Override
    public void close() {
        roots.forEach(VectorSchemaRoot::close);
    }
}
