package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import io.walsink.format.ArrowValueKind;
import java.util.EnumMap;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
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
    BOOL(ArrowValueKind.BOOL) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(((BitVector) vector).get(row));
        }
    },
    INT8(ArrowValueKind.INT8) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getByte(row));
        }
    },
    UINT8(ArrowValueKind.UINT8) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getByte(row) & 0xff);
        }
    },
    INT16(ArrowValueKind.INT16) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getShort((long) row * 2));
        }
    },
    UINT16(ArrowValueKind.UINT16) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getShort((long) row * 2) & 0xffff);
        }
    },
    /** int32, uint32 (same bits), date32, time32. */
    INT32(ArrowValueKind.INT32, ArrowValueKind.UINT32, ArrowValueKind.DATE_DAY, ArrowValueKind.TIME32) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashInt(vector.getDataBuffer().getInt((long) row * 4));
        }
    },
    /** int64, uint64 (same bits), timestamp (any unit and zone), time64. */
    INT64(ArrowValueKind.INT64, ArrowValueKind.UINT64, ArrowValueKind.TIME64, ArrowValueKind.TIMESTAMP) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashLong(vector.getDataBuffer().getLong((long) row * 8));
        }
    },
    FLOAT32(ArrowValueKind.FLOAT32) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashFloat(vector.getDataBuffer().getFloat((long) row * 4));
        }
    },
    FLOAT64(ArrowValueKind.FLOAT64) {
        @Override
        int hash(FieldVector vector, int row) {
            return BucketHash.hashDouble(vector.getDataBuffer().getDouble((long) row * 8));
        }
    },
    /** utf8 and binary: 32-bit offsets. */
    BYTES(ArrowValueKind.BYTES) {
        @Override
        int hash(FieldVector vector, int row) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            int start = offsets.getInt((long) row * 4);
            int end = offsets.getInt((long) row * 4 + 4);
            return BucketHash.hashBytes(vector.getDataBuffer(), start, end - start);
        }
    },
    /** large utf8 and large binary: 64-bit offsets. */
    LARGE_BYTES(ArrowValueKind.LARGE_BYTES) {
        @Override
        int hash(FieldVector vector, int row) {
            ArrowBuf offsets = vector.getOffsetBuffer();
            long start = offsets.getLong((long) row * 8);
            long end = offsets.getLong((long) row * 8 + 8);
            return BucketHash.hashBytes(vector.getDataBuffer(), start, Math.toIntExact(end - start));
        }
    };

    /** Which type each kind of Arrow value hashes as; a kind missing here cannot be a bucket source. */
    private static final Map<ArrowValueKind, BucketSourceType> BY_KIND = new EnumMap<>(ArrowValueKind.class);

    static {
        for (BucketSourceType t : values()) {
            for (ArrowValueKind kind : t.kinds) {
                BY_KIND.put(kind, t);
            }
        }
    }

    private final ArrowValueKind[] kinds;

    BucketSourceType(ArrowValueKind... kinds) {
        this.kinds = kinds;
    }

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
        BucketSourceType source = ArrowValueKind.of(type).map(BY_KIND::get).orElse(null);
        if (source == null) {
            throw new UnsupportedBucketTypeException(type);
        }
        return source;
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
