package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Assigns rows of one Arrow column to buckets exactly as Lance's {@code bucket} transform does:
 * {@code (hash & 0x7fffffff) % numBuckets}, and bucket 0 for null.
 *
 * <p>Type and bucket count are validated once, at construction, so a sharding configuration
 * that cannot work fails when the writer opens instead of on the first row.
 */
@Internal
public final class BucketAssigner {

    private final BucketSourceType sourceType;
    private final int numBuckets;

    private BucketAssigner(BucketSourceType sourceType, int numBuckets) {
        this.sourceType = sourceType;
        this.numBuckets = BucketHash.checkNumBuckets(numBuckets);
    }

    /**
     * @throws UnsupportedBucketTypeException if {@code type} cannot be a bucket source
     * @throws IllegalArgumentException if {@code numBuckets} is outside [1, 1024]
     */
    public static BucketAssigner of(ArrowType type, int numBuckets) {
        return new BucketAssigner(BucketSourceType.of(type), numBuckets);
    }

    /**
     * One-off form of {@link #bucketOf(FieldVector, int)}: validates type and bucket count on
     * every call (without allocating); hold a {@link BucketAssigner} for a column instead.
     */
    public static int bucketOf(FieldVector vector, int row, int numBuckets) {
        BucketSourceType type = BucketSourceType.of(vector.getField().getType());
        BucketHash.checkNumBuckets(numBuckets);
        if (vector.isNull(row)) {
            return BucketHash.NULL_BUCKET;
        }
        return BucketHash.bucketOf(type.hash(vector, row), numBuckets);
    }

    /** One-off form of {@link #assign(FieldVector, int[])}. */
    public static void assign(FieldVector vector, int numBuckets, int[] out) {
        of(vector.getField().getType(), numBuckets).assign(vector, out);
    }

    public int numBuckets() {
        return numBuckets;
    }

    public BucketSourceType sourceType() {
        return sourceType;
    }

    /** Bucket of {@code row}; {@code vector} must have the type this assigner was made for. */
    public int bucketOf(FieldVector vector, int row) {
        if (vector.isNull(row)) {
            return BucketHash.NULL_BUCKET;
        }
        return BucketHash.bucketOf(sourceType.hash(vector, row), numBuckets);
    }

    /** Writes the bucket of every row of {@code vector} to {@code out[0 .. valueCount)}. */
    public void assign(FieldVector vector, int[] out) {
        if (BucketSourceType.of(vector.getField().getType()) != sourceType) {
            throw new IllegalArgumentException(
                    "vector " + vector.getField() + " is not hashed as " + sourceType + " like this assigner's column");
        }
        int rows = vector.getValueCount();
        if (out.length < rows) {
            throw new IllegalArgumentException(
                    "output holds " + out.length + " buckets, the vector has " + rows + " rows");
        }
        for (int row = 0; row < rows; row++) {
            out[row] = bucketOf(vector, row);
        }
    }
}
