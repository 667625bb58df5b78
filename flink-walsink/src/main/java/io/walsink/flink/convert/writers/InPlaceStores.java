package io.walsink.flink.convert.writers;

import java.nio.ByteOrder;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Stores into vectors that have room for the row (a memtable's open batch sizes them first, see
 * {@link RowDataArrowWriter#writeInPlace}): at the buffers' addresses, without Arrow's bounds and
 * reference-count checks on every access, which cost more than the store itself in a wide row of
 * numbers (three checked calls a value: the validity byte's read and write, the value's write).
 */
final class InPlaceStores {
    private InPlaceStores() {}

    static void putLong(BaseFixedWidthVector v, int index, long value) {
        MemoryUtil.putLong(v.getDataBufferAddress() + ((long) index << 3), value);
        markValid(v.getValidityBufferAddress(), index);
    }

    static void putInt(BaseFixedWidthVector v, int index, int value) {
        MemoryUtil.putInt(v.getDataBufferAddress() + ((long) index << 2), value);
        markValid(v.getValidityBufferAddress(), index);
    }

    /**
     * Appends {@code length} bytes of {@code src} as value {@code index}, which must follow the
     * last value set; the data buffer grows as {@code setSafe} would grow it.
     */
    static void appendBytes(BaseVariableWidthVector v, int index, byte[] src, int from, int length) {
        long offsets = v.getOffsetBufferAddress();
        int start = MemoryUtil.getInt(offsets + ((long) index << 2));
        long end = (long) start + length;
        while (v.getDataBuffer().capacity() < end) {
            v.reallocDataBuffer();
        }
        MemoryUtil.copyToMemory(src, from, v.getDataBufferAddress() + start, length);
        MemoryUtil.putInt(v.getOffsetBufferAddress() + ((long) (index + 1) << 2), (int) end);
        markValid(v.getValidityBufferAddress(), index);
        v.setLastSet(index);
    }

    /**
     * Appends string field {@code pos} of {@code row} as value {@code index} straight from the
     * row's memory, as {@link #appendBytes}, without the {@code BinaryStringData} that
     * {@code getString} makes per value; false (nothing written) unless the row is one heap
     * segment on a little-endian machine. Flink's layout: the field's 8 bytes hold the string
     * itself when its top bit is set (length in the next 7 bits, bytes from the field's start),
     * else its offset from the row's start (high 32 bits) and length (low 32 bits).
     */
    static boolean appendBinaryRowString(BaseVariableWidthVector v, int index, BinaryRowData row, int pos) {
        MemorySegment[] segments = row.getSegments();
        if (segments.length != 1 || segments[0].isOffHeap() || !LITTLE_ENDIAN) {
            return false;
        }
        MemorySegment segment = segments[0];
        int field = row.getOffset() + BinaryRowData.calculateBitSetWidthInBytes(row.getArity()) + (pos << 3);
        long offsetAndLength = segment.getLong(field);
        int from;
        int length;
        if (offsetAndLength < 0) { // the top bit: stored in the field
            from = field;
            length = (int) ((offsetAndLength & INLINE_LENGTH_BITS) >>> 56);
        } else {
            from = row.getOffset() + (int) (offsetAndLength >> 32);
            length = (int) offsetAndLength;
        }
        appendBytes(v, index, segment.getArray(), from, length);
        return true;
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final long INLINE_LENGTH_BITS = 0x7FL << 56;

    private static void markValid(long validity, int index) {
        long at = validity + (index >>> 3);
        MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (index & 7))));
    }
}
