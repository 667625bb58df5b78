package io.walsink.flink.internal.routing;

import io.walsink.annotation.Internal;
import java.io.Serializable;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The integer key that carries each bucket's records to its writer subtask.
 *
 * <p>Flink sends a key to the subtask owning its key group, {@code murmur(key) % maxParallelism},
 * and subtasks own contiguous key-group ranges. Keyed by the bare bucket number, buckets land
 * where the hash throws them: with 4 buckets, parallelism 2 and 128 key groups all four land on
 * subtask 1 and one thread writes everything. Instead, bucket {@code b} of {@code n} is carried by
 * the smallest key {@code k = b + j * n} whose key group is the centre of the b-th n-th of the
 * key-group space. Buckets then spread as evenly as contiguous ranges allow at every
 * parallelism, rescaling included, and {@code k % n} gives the bucket back.
 */
@Internal
public final class BucketRouting implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int buckets;
    private final int maxParallelism;
    private transient Integer[] keys; // boxed once: a key selector returns one per record

    public BucketRouting(int buckets, int maxParallelism) {
        if (buckets < 1 || maxParallelism < 1) {
            throw new IllegalArgumentException(
                    "buckets and max parallelism must be positive, were " + buckets + " and " + maxParallelism);
        }
        this.buckets = buckets;
        this.maxParallelism = maxParallelism;
    }

    /** The key that carries bucket {@code bucket}. */
    public int keyOf(int bucket) {
        return boxedKeyOf(bucket);
    }

    /** {@link #keyOf} as one {@code Integer} per bucket, the same object at every call. */
    public Integer boxedKeyOf(int bucket) {
        if (keys == null) {
            Integer[] all = new Integer[buckets];
            for (int b = 0; b < buckets; b++) {
                all[b] = search(b);
            }
            keys = all;
        }
        return keys[bucket];
    }

    /** The bucket key {@code key} carries. */
    public int bucketOf(int key) {
        return key % buckets;
    }

    /** Whether {@code key} is the key this routing gives its bucket (keys of older builds were bare buckets). */
    public boolean isRoutingKey(int key) {
        return key >= 0 && keyOf(bucketOf(key)) == key;
    }

    public int buckets() {
        return buckets;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    int targetKeyGroup(int bucket) {
        return (int) ((2L * bucket + 1) * maxParallelism / (2L * buckets));
    }

    private int search(int bucket) {
        int target = targetKeyGroup(bucket);
        for (long key = bucket; key <= Integer.MAX_VALUE; key += buckets) {
            if (KeyGroupRangeAssignment.assignToKeyGroup((int) key, maxParallelism) == target) {
                return (int) key;
            }
        }
        throw new IllegalStateException("no key of bucket " + bucket + " of " + buckets + " hashes to key group "
                + target + " of " + maxParallelism);
    }
}
