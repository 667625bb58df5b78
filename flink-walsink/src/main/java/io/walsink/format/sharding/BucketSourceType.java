package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * How the values of a bucket-sharding source column are read and hashed, one constant per
 * physical representation. Resolved once per column so the per-row path is a buffer read and a
 * hash, with no boxing and no type dispatch on the value.
 *
 * <p>Values are read straight from the vector buffers (little-endian, like the bytes Lance
 * hashes). Callers check nulls first: the value slot of a null row is undefined.
 */
@Internal
public enum BucketSourceType {
    BOOL {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(((BitVector) vector).get(row));
        }
    },
    INT8 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getByte(row));
        }
    },
    UINT8 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getByte(row) & 0xff);
        }
    },
    INT16 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getShort((long) row * 2));
        }
    },
    UINT16 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getShort((long) row * 2) & 0xffff);
        }
    },
    /** int32, uint32 (same bits), date32, time32. */
    INT32 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getInt((long) row * 4));
        }
    },
    /** int64, uint64 (same bits), timestamp (any unit and zone), time64. */
    INT64 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashLong(vector.getDataBuffer().getLong((long) row * 8));
        }
    },
    FLOAT32 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashFloat(vector.getDataBuffer().getFloat((long) row * 4));
        }
    },
    FLOAT64 {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashDouble(vector.getDataBuffer().getDouble((long) row * 8));
        }
    },
    /** utf8 and binary: 32-bit offsets. */
    BYTES {
        @Override
        int hash(FieldVector vector, int row) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            int start = offsets.getInt((long) row * 4);
            int end = offsets.getInt((long) row * 4 + 4);
            return BucketHash.hashBytes(vector.getDataBuffer(), start, end - start);
        }
    },
    /** large utf8 and large binary: 64-bit offsets. */
    LARGE_BYTES {
        @Override
        int hash(FieldVector vector, int row) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            long start = offsets.getLong((long) row * 8);
            long end = offsets.getLong((long) row * 8 + 8);
            return BucketHash.hashBytes(vector.getDataBuffer(), start, Math.toIntExact(end - start));
        }
    };

    /** Hash of the non-null value at {@code row}. */
    abstract int hash(FieldVector vector, int row);

    /**
     * The representation of {@code type}.
     *
     * <p>Binary and large binary hash their bytes like strings do; lance-core 7.0.0's evaluator
     * rejects them as bucket sources ({@link #lanceCoreEvaluates(ArrowType)}), so a table that
     * Lance itself must route cannot use them.
     *
     * @throws UnsupportedBucketTypeException for any other type
     */
    public static BucketSourceType of(ArrowType type) {
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
                        return INT32;
                    case 64:
                        return INT64;
                    default:
                        throw new UnsupportedBucketTypeException(type);
                }
            }
            case Date:
                if (((ArrowType.Date) type).getUnit() == DateUnit.DAY) {
                    return INT32;
                }
                throw new UnsupportedBucketTypeException(type);
            case Time:
                return ((ArrowType.Time) type).getBitWidth() == 32 ? INT32 : INT64;
            case Timestamp:
                return INT64;
            case FloatingPoint:
                switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                    case SINGLE:
                        return FLOAT32;
                    case DOUBLE:
                        return FLOAT64;
                    default:
                        throw new UnsupportedBucketTypeException(type);
                }
            case Utf8:
            case Binary:
                return BYTES;
            case LargeUtf8:
            case LargeBinary:
                return LARGE_BYTES;
            default:
                throw new UnsupportedBucketTypeException(type);
        }
    }

    /**
     * Whether lance-core 7.0.0's {@code ShardingEvaluator} accepts {@code type} as a bucket
     * source (checked against it): everything {@link #of} supports except binary and large
     * binary.
     */
    public static boolean lanceCoreEvaluates(ArrowType type) {
        ArrowType.ArrowTypeID id = type.getTypeID();
        if (id == ArrowType.ArrowTypeID.Binary || id == ArrowType.ArrowTypeID.LargeBinary) {
            return false;
        }
        try {
            of(type);
            return true;
        } catch (UnsupportedBucketTypeException e) {
            return false;
        }
    }
}
