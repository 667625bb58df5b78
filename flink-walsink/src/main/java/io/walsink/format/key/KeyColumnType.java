package io.walsink.format.key;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
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
    BOOL {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            out.appendBoolean(((BitVector) vector).get(row) != 0);
        }
    },
    INT8((data, row) -> data.getByte(row) ^ Long.MIN_VALUE),
    INT16((data, row) -> data.getShort((long) row * 2) ^ Long.MIN_VALUE),
    /** int32, date32, time32. */
    INT32((data, row) -> data.getInt((long) row * 4) ^ Long.MIN_VALUE),
    /** int64, date64, time64, timestamp (any unit and zone: the stored instant is the key). */
    INT64((data, row) -> data.getLong((long) row * 8) ^ Long.MIN_VALUE),
    UINT8((data, row) -> data.getByte(row) & 0xffL),
    UINT16((data, row) -> data.getShort((long) row * 2) & 0xffffL),
    UINT32((data, row) -> data.getInt((long) row * 4) & 0xffffffffL),
    UINT64((data, row) -> data.getLong((long) row * 8)),
    /** utf8 and binary: 32-bit offsets. UTF-8 byte order is code point order. */
    BYTES {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            int start = offsets.getInt((long) row * 4);
            int end = offsets.getInt((long) row * 4 + 4);
            out.appendBytes(vector.getDataBuffer(), start, end - start);
        }
    },
    /** large utf8 and large binary: 64-bit offsets. */
    LARGE_BYTES {
        @Override
        void append(FieldVector vector, int row, KeyBuffer out) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            long start = offsets.getLong((long) row * 8);
            long end = offsets.getLong((long) row * 8 + 8);
            out.appendBytes(vector.getDataBuffer(), start, Math.toIntExact(end - start));
        }
    },
    FIXED_BYTES {
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

    /** Null for the types whose encoding is not eight value bytes. */
    private final LongBitsReader longBits;

    KeyColumnType() {
        this(null);
    }

    KeyColumnType(LongBitsReader longBits) {
        this.longBits = longBits;
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

    /** @throws UnsupportedKeyTypeException if {@code field}'s type cannot be a key column */
    public static KeyColumnType of(Field field) {
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool:
                return BOOL;
            case Int: {
                ArrowType.Int t = (ArrowType.Int) type;
                switch (t.getBitWidth()) {
                    case 8:
                        return t.getIsSigned() ? INT8 : UINT8;
                    case 16:
                        return t.getIsSigned() ? INT16 : UINT16;
                    case 32:
                        return t.getIsSigned() ? INT32 : UINT32;
                    default:
                        return t.getIsSigned() ? INT64 : UINT64;
                }
            }
            case Date:
                return ((ArrowType.Date) type).getUnit() == DateUnit.DAY ? INT32 : INT64;
            case Time:
                return ((ArrowType.Time) type).getBitWidth() == 32 ? INT32 : INT64;
            case Timestamp:
                return INT64;
            case Utf8:
            case Binary:
                return BYTES;
            case LargeUtf8:
            case LargeBinary:
                return LARGE_BYTES;
            case FixedSizeBinary:
                return FIXED_BYTES;
            case FloatingPoint:
                throw new UnsupportedKeyTypeException(
                        field, "floating point has two zeros and NaN, so key equality would be ambiguous");
            default:
                throw new UnsupportedKeyTypeException(
                        field,
                        "supported key types are bool, signed and unsigned integers, date, time,"
                                + " timestamp, utf8, large utf8, binary, large binary and fixed-size"
                                + " binary");
        }
    }
}
