package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.sharding.BucketAssigner;
import java.io.Serializable;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One bucket of a bucket-sharded table: the base-table rows whose sharding column falls in it,
 * and the shard that holds it. Every key lives in exactly one bucket, so buckets can be merged
 * and read independently (in parallel).
 */
@Internal
public record BucketSelection(String column, int numBuckets, int bucket) implements Serializable {

    public BucketSelection {
        if (bucket < 0 || bucket >= numBuckets) {
            throw new IllegalArgumentException("bucket " + bucket + " is not in [0, " + numBuckets + ")");
        }
    }

    /** An assigner for batches of one schema; build it once per batch. */
    public Assigner assigner(VectorSchemaRoot batch) {
        FieldVector vector = batch.getVector(column);
        if (vector == null) {
            throw new IllegalArgumentException("batch has no sharding column '" + column + "'");
        }
        BucketAssigner assigner = BucketAssigner.of(vector.getField().getType(), numBuckets);
        return row -> assigner.bucketOf(vector, row) == bucket;
    }

    public interface Assigner {
        boolean keeps(int row);
    }
}
