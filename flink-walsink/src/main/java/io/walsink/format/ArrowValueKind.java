package io.walsink.format;

import io.walsink.annotation.Internal;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The Arrow types a primary-key column or a bucket source column may have, told apart as far as
 * either of them cares: by width and signedness, and for dates and times by unit. Key encoding
 * ({@code io.walsink.format.key}) and bucket hashing ({@code io.walsink.format.sharding}) each
 * say which kinds their per-column readers take, so the two agree on what an Arrow type is and
 * differ only in what they accept.
 */
@Internal
public enum ArrowValueKind {
    BOOL,
    INT8,
    UINT8,
    INT16,
    UINT16,
    INT32,
    UINT32,
    INT64,
    UINT64,
    /** date32: days since the epoch. */
    DATE_DAY,
    /** date64: milliseconds since the epoch. */
    DATE_MILLI,
    TIME32,
    TIME64,
    /** Any unit and zone: the stored value is the instant. */
    TIMESTAMP,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    /** utf8 and binary: 32-bit offsets. */
    BYTES,
    /** large utf8 and large binary: 64-bit offsets. */
    LARGE_BYTES,
    FIXED_BYTES;

    /** The kind of {@code type}; empty for a type that is neither (decimals, nested types, ...). */
    public static Optional<ArrowValueKind> of(ArrowType type) {
        switch (type.getTypeID()) {
            case Bool:
                return Optional.of(BOOL);
            case Int:
                return integer((ArrowType.Int) type);
            case Date:
                return Optional.of(((ArrowType.Date) type).getUnit() == DateUnit.DAY ? DATE_DAY : DATE_MILLI);
            case Time:
                return Optional.of(((ArrowType.Time) type).getBitWidth() == 32 ? TIME32 : TIME64);
            case Timestamp:
                return Optional.of(TIMESTAMP);
            case FloatingPoint:
                switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                    case HALF:
                        return Optional.of(FLOAT16);
                    case SINGLE:
                        return Optional.of(FLOAT32);
                    default:
                        return Optional.of(FLOAT64);
                }
            case Utf8:
            case Binary:
                return Optional.of(BYTES);
            case LargeUtf8:
            case LargeBinary:
                return Optional.of(LARGE_BYTES);
            case FixedSizeBinary:
                return Optional.of(FIXED_BYTES);
            default:
                return Optional.empty();
        }
    }

    private static Optional<ArrowValueKind> integer(ArrowType.Int t) {
        boolean signed = t.getIsSigned();
        switch (t.getBitWidth()) {
            case 8:
                return Optional.of(signed ? INT8 : UINT8);
            case 16:
                return Optional.of(signed ? INT16 : UINT16);
            case 32:
                return Optional.of(signed ? INT32 : UINT32);
            case 64:
                return Optional.of(signed ? INT64 : UINT64);
            default:
                return Optional.empty(); // Arrow defines no other width
        }
    }

    public boolean isFloatingPoint() {
        return this == FLOAT16 || this == FLOAT32 || this == FLOAT64;
    }
}
