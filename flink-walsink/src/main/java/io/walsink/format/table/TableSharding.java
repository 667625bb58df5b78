package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How a table's rows are spread over MemWAL shards: unsharded, or bucketed by one primary-key
 * column. The column must be part of the key so that every key lives in exactly one shard
 * (otherwise compaction order between shards could let an older row win).
 */
@Internal
public record TableSharding(ShardTransform transform, Optional<String> sourceColumn, OptionalInt numBuckets) {
    public static final int MIN_BUCKETS = 1;
    public static final int MAX_BUCKETS = 1024;

    public TableSharding {
        Objects.requireNonNull(transform, "transform");
        Objects.requireNonNull(sourceColumn, "sourceColumn");
        Objects.requireNonNull(numBuckets, "numBuckets");
        if (transform == ShardTransform.BUCKET) {
            if (sourceColumn.isEmpty() || numBuckets.isEmpty()) {
                throw new IllegalArgumentException("bucket sharding needs a source column and a bucket count");
            }
            int n = numBuckets.getAsInt();
            if (n < MIN_BUCKETS || n > MAX_BUCKETS) {
                throw new IllegalArgumentException(
                        "bucket count must be in [" + MIN_BUCKETS + ", " + MAX_BUCKETS + "], got " + n);
            }
        }
    }

    public static TableSharding unsharded() {
        return new TableSharding(ShardTransform.UNSHARDED, Optional.empty(), OptionalInt.empty());
    }

    public static TableSharding bucket(String column, int numBuckets) {
        return new TableSharding(ShardTransform.BUCKET, Optional.of(column), OptionalInt.of(numBuckets));
    }

    /** Number of shard values: the bucket count, 1 when unsharded, empty for identity. */
    public OptionalInt shardCount() {
        return switch (transform) {
            case UNSHARDED -> OptionalInt.of(1);
            case BUCKET -> numBuckets;
            case IDENTITY -> OptionalInt.empty();
        };
    }
}
