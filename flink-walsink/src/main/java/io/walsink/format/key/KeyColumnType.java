package io.walsink.format.key;

import io.walsink.format.ArrowValueKind;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How a primary-key column's values are read from Arrow and written into a {@link KeyBuffer},
 * one constant per physical representation, resolved once per column.
 *
 * <p>Floating point is refused: {@code -0.0 == 0.0} and NaN make key equality depend on who
 * compares, and an upsert key that two writers disagree on loses rows. Decimals and nested
 * types are refused as well (no key encoding defined in the format).
 */
enum KeyColumnType {
    BOOL(ArrowValueKind.BOOL) {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            out.appendBoolean(((BitVector) vector).get(row) != 0);
        }
    },
    INT8((data, row) -> data.getByte(row) ^ Long.MIN_VALUE, ArrowValueKind.INT8),
    INT16((data, row) -> data.getShort((long) row * 2) ^ Long.MIN_VALUE, ArrowValueKind.INT16),
    /** int32, date32, time32. */
    INT32(
            (data, row) -> data.getInt((long) row * 4) ^ Long.MIN_VALUE,
            ArrowValueKind.INT32,
            ArrowValueKind.DATE_DAY,
            ArrowValueKind.TIME32),
    /** int64, date64, time64, timestamp (any unit and zone: the stored instant is the key). */
    INT64(
            (data, row) -> data.getLong((long) row * 8) ^ Long.MIN_VALUE,
            ArrowValueKind.INT64,
            ArrowValueKind.DATE_MILLI,
            ArrowValueKind.TIME64,
            ArrowValueKind.TIMESTAMP),
    UINT8((data, row) -> data.getByte(row) & 0xffL, ArrowValueKind.UINT8),
    UINT16((data, row) -> data.getShort((long) row * 2) & 0xffffL, ArrowValueKind.UINT16),
    UINT32((data, row) -> data.getInt((long) row * 4) & 0xffffffffL, ArrowValueKind.UINT32),
    UINT64((data, row) -> data.getLong((long) row * 8), ArrowValueKind.UINT64),
    /** utf8 and binary: 32-bit offsets. UTF-8 byte order is code point order. */
    BYTES(ArrowValueKind.BYTES) {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            int start = offsets.getInt((long) row * 4);
            int end = offsets.getInt((long) row * 4 + 4);
            out.appendBytes(vector.getDataBuffer(), start, end - start);
        }
    },
    /** large utf8 and large binary: 64-bit offsets. */
    LARGE_BYTES(ArrowValueKind.LARGE_BYTES) {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            long start = offsets.getLong((long) row * 8);
            long end = offsets.getLong((long) row * 8 + 8);
            out.appendBytes(vector.getDataBuffer(), start, Math.toIntExact(end - start));
        }
    },
    FIXED_BYTES(ArrowValueKind.FIXED_BYTES) {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            int width = ((FixedSizeBinaryVector) vector).getByteWidth();
            out.appendBytes(vector.getDataBuffer(), (long) row * width, width);
        }
    };

    /** The eight value bytes of an integer-like value, read from the vector's data buffer. */
    @FunctionalInterface
    private interface LongBitsReader {
        long read(ArrowBuf data, int row);
    }

    /** Which type each kind of Arrow value is read as; a kind missing here cannot be a key. */
    private static final Map<ArrowValueKind, KeyColumnType> BY_KIND = new EnumMap<>(ArrowValueKind.class);

    static {
        for (KeyColumnType t : values()) {
            for (ArrowValueKind kind : t.kinds) {
                BY_KIND.put(kind, t);
            }
        }
    }

    /** Null for the types whose encoding is not eight value bytes. */
    private final LongBitsReader longBits;

    private final ArrowValueKind[] kinds;

    KeyColumnType(ArrowValueKind... kinds) {
        this(null, kinds);
    }

    KeyColumnType(LongBitsReader longBits, ArrowValueKind... kinds) {
        this.longBits = longBits;
        this.kinds = kinds;
    }

    /** Appends the non-null value at {@code row}; integer-like types as their eight value bytes. */
    void append(FieldVector vector, int row, KeyBuffer out) {
        out.appendUnsigned(longBits(vector, row));
    }

    /**
     * Whether a value's encoding is the presence byte and eight value bytes, so that the 64-bit
     * {@link #longBits} alone tells two values apart (integers, dates, times, timestamps).
     */
    boolean hasLongBits() {
        return longBits != null;
    }

    /**
     * The eight value bytes the encoding of the non-null value at {@code row} holds, as one long
     * (for signed types the value with its sign bit flipped, as {@link KeyBuffer#appendSigned}).
     */
    long longBits(FieldVector vector, int row) {
        if (longBits == null) {
            throw new UnsupportedOperationException(this + " has no 64-bit key encoding");
        }
        return longBits.read(vector.getDataBuffer(), row);
    }

    /**
     * The value {@link #longBits} read, as the column stores it (sign-extended for signed types;
     * its low bytes are the stored ones): the sign bit flipped back.
     */
    long valueOfLongBits(long bits) {
        if (longBits == null) {
            throw new UnsupportedOperationException(this + " has no 64-bit key encoding");
        }
        boolean unsigned = this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
        return unsigned ? bits : bits ^ Long.MIN_VALUE;
    }

    /** @throws UnsupportedKeyTypeException if {@code field}'s type cannot be a key column */
    public static KeyColumnType of(Field field) {
        Optional<ArrowValueKind> kind = ArrowValueKind.of(field.getType());
        if (kind.isPresent() && kind.get().isFloatingPoint()) {
            throw new UnsupportedKeyTypeException(
                    field, "floating point has two zeros and NaN, so key equality would be ambiguous");
        }
        KeyColumnType type = kind.map(BY_KIND::get).orElse(null);
        if (type == null) {
            throw new UnsupportedKeyTypeException(
                    field,
                    "supported key types are bool, signed and unsigned integers, date, time,"
                            + " timestamp, utf8, large utf8, binary, large binary and fixed-size"
                            + " binary");
        }
        return type;
    }
}
