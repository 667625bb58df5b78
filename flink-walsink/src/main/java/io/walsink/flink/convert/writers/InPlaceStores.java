package io.walsink.flink.convert.writers;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;

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

    private static void markValid(long validity, int index) {
        long at = validity + (index >>> 3);
        MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (index & 7))));
    }
}
