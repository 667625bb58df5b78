package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.format.sharding.BucketHash;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.junit.jupiter.api.Test;

/**
 * The keyed reference's selector keys a row as the sink's does (its bucket's routing key) and, as
 * the sink's does, returns one {@code Integer} per bucket: a reference that boxed a key per record
 * would do more than the sink and flatter its ratio.
 */
class BucketOfKeyTest {
    @Test
    void eachBucketHasOneKeyObjectAndItIsTheRoutingsKey() {
        int buckets = 256;
        int maxParallelism = 256; // as q1 sets it at 256 buckets
        Q1Pipelines.BucketOfKey selector = new Q1Pipelines.BucketOfKey(buckets, maxParallelism);
        BucketRouting routing = new BucketRouting(buckets, maxParallelism);
        Map<Integer, Integer> firstKeyOfBucket = new HashMap<>();
        int largeKeys = 0;
        for (long id = 0; id < 20_000; id++) {
            int bucket = BucketHash.bucketOf(BucketHash.hashLong(id), buckets);
            Integer key = selector.getKey(GenericRowData.of(id));
            assertThat(key).isEqualTo(routing.keyOf(bucket));
            Integer first = firstKeyOfBucket.putIfAbsent(bucket, key);
            if (first != null) {
                assertThat(key).as("bucket %d's key", bucket).isSameAs(first);
                largeKeys += key > 127 ? 1 : 0; // beyond Integer's own cache of small values
            }
        }
        assertThat(firstKeyOfBucket).hasSize(buckets);
        assertThat(largeKeys).as("keys Integer.valueOf would have boxed anew").isPositive();
    }
}
