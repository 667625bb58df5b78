package io.walsink.format.key;

import io.walsink.annotation.Internal;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A reusable, growable buffer holding one order-preserving primary-key encoding (format.md
 * section 6). Unsigned lexicographic comparison of two encodings orders them like the key
 * tuples: null first, then by value, column by column.
 *
 * <p>Each {@code append*} call writes one column: a presence byte ({@code 0x00} null,
 * {@code 0x01} value) and the value. Strings and binary escape {@code 0x00} as
 * {@code 0x00 0xFF} and end with {@code 0x00 0x00}, so no encoded column is a prefix of another
 * and {@code ("a", "b")} never collides with {@code ("ab", ...)}.
 *
 * <p>Kept mutable and reused per row on purpose: the put path encodes every row's key, and a
 * fresh array per row would dominate its allocations. Copy with {@link #toByteArray()} to keep.
 */
@Internal
public final class KeyBuffer implements Comparable<KeyBuffer> {

    private static final byte NULL = 0x00;
    private static final byte PRESENT = 0x01;
    private static final byte ESCAPE = (byte) 0xff;

    private byte[] bytes;
    private int length;

    public KeyBuffer() {
        this(64);
    }

    public KeyBuffer(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    public KeyBuffer clear() {
        length = 0;
        return this;
    }

    public int length() {
        return length;
    }

    /** The backing array; only {@code [0, length())} is the key. Valid until the next write. */
    public byte[] array() {
        return bytes;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    public KeyBuffer appendNull() {
        ensure(1);
        bytes[length++] = NULL;
        return this;
    }

    /** Signed integers, dates, times and timestamps: sign bit flipped so negatives sort first. */
    public KeyBuffer appendSigned(long value) {
        return appendUnsigned(value ^ Long.MIN_VALUE);
    }

    /** Unsigned integers, zero-extended to 64 bits by the caller. */
    public KeyBuffer appendUnsigned(long value) {
        ensure(9);
        bytes[length++] = PRESENT;
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[length++] = (byte) (value >>> shift);
        }
        return this;
    }

    /**
     * The 64 value bits of a one-column key written by {@link #appendUnsigned} (or
     * {@link #appendSigned}, whose value comes back with its sign bit flipped): the inverse of
     * writing that key, for indexes that hold such keys as longs.
     *
     * @throws IllegalArgumentException unless {@code key[0, length)} is such a key
     */
    public static long longBits(byte[] key, int length) {
        if (length != 9 || key[0] != PRESENT) {
            throw new IllegalArgumentException("not a one-column 64-bit key encoding: " + length + " bytes");
        }
        long bits = 0;
        for (int i = 1; i < 9; i++) {
            bits = bits << 8 | (key[i] & 0xffL);
        }
        return bits;
    }

    public KeyBuffer appendBoolean(boolean value) {
        ensure(2);
        bytes[length++] = PRESENT;
        bytes[length++] = (byte) (value ? 1 : 0);
        return this;
    }

    public KeyBuffer appendBytes(byte[] value) {
        return appendBytes(value, 0, value.length);
    }

    public KeyBuffer appendBytes(byte[] value, int offset, int count) {
        ensure(1 + 2 * count + 2); // worst case: every byte is 0x00
        bytes[length++] = PRESENT;
        for (int i = offset; i < offset + count; i++) {
            byte b = value[i];
            bytes[length++] = b;
            if (b == 0) {
                bytes[length++] = ESCAPE;
            }
        }
        return terminate();
    }

    /** Same as {@link #appendBytes(byte[], int, int)} straight from Arrow memory. */
    public KeyBuffer appendBytes(ArrowBuf value, long offset, int count) {
        ensure(1 + 2 * count + 2);
        bytes[length++] = PRESENT;
        for (long i = offset; i < offset + count; i++) {
            byte b = value.getByte(i);
            bytes[length++] = b;
            if (b == 0) {
                bytes[length++] = ESCAPE;
            }
        }
        return terminate();
    }

    private KeyBuffer terminate() {
        bytes[length++] = 0;
        bytes[length++] = 0;
        return this;
    }

    /** Unsigned lexicographic order of the encodings, which is the order of the key tuples. */
    @Override
    public int compareTo(KeyBuffer other) {
        return Arrays.compareUnsigned(bytes, 0, length, other.bytes, 0, other.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyBuffer && compareTo((KeyBuffer) o) == 0;
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + bytes[i];
        }
        return h;
    }

    private void ensure(int extra) {
        if (length + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
        }
    }
}
