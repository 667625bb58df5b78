package io.walsink.flink.internal.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/** Buckets spread evenly over the writer's subtasks at every parallelism, and keys give their bucket back. */
class BucketRoutingTest {
    @Test
    void bareBucketNumbersCanLandOnOneSubtask() {
        // Why the routing exists: keyed by the bucket number, 4 buckets over 2 subtasks all go to subtask 1.
        Set<Integer> owners = new HashSet<>();
        for (int bucket = 0; bucket < 4; bucket++) {
            owners.add(KeyGroupRangeAssignment.assignKeyToParallelOperator(bucket, 128, 2));
        }
        assertThat(owners).containsExactly(1);
    }

    /** The key selector runs per record on both sides of the shuffle: each bucket's key is boxed once. */
    @Test
    void eachBucketsBoxedKeyIsOneObject() {
        BucketRouting routing = new BucketRouting(256, 32768);
        int large = 0;
        for (int b = 0; b < 256; b++) {
            Integer key = routing.boxedKeyOf(b);
            assertThat(key).isEqualTo(routing.keyOf(b)).isSameAs(routing.boxedKeyOf(b));
            large += key > 127 ? 1 : 0; // beyond Integer's own cache
        }
        assertThat(large).isPositive();
    }

    /**
     * Even to one bucket where key groups are plentiful; where a bucket's share of the key groups
     * is only a few, rounding to whole key groups may cost one more.
     */
    @Test
    void everySubtaskGetsItsShareOfBucketsAtEveryParallelism() {
        for (int maxParallelism : new int[] {128, 256, 1000, 4096}) {
            for (int buckets : new int[] {1, 2, 3, 4, 5, 8, 16, 31, 128}) {
                if (buckets > maxParallelism) {
                    continue;
                }
                BucketRouting routing = new BucketRouting(buckets, maxParallelism);
                Set<Integer> keys = new HashSet<>();
                for (int b = 0; b < buckets; b++) {
                    int key = routing.keyOf(b);
                    assertThat(routing.bucketOf(key)).isEqualTo(b);
                    assertThat(routing.isRoutingKey(key)).isTrue();
                    assertThat(KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism))
                            .isEqualTo(routing.targetKeyGroup(b));
                    keys.add(key);
                }
                assertThat(keys).hasSize(buckets);
                for (int parallelism = 1; parallelism <= Math.min(buckets, 12); parallelism++) {
                    int[] perSubtask = new int[parallelism];
                    for (int b = 0; b < buckets; b++) {
                        perSubtask[
                                KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                        routing.keyOf(b), maxParallelism, parallelism)]++;
                    }
                    int min = java.util.Arrays.stream(perSubtask).min().orElseThrow();
                    int max = java.util.Arrays.stream(perSubtask).max().orElseThrow();
                    assertThat(max - min)
                            .as(
                                    "%d buckets, max parallelism %d, parallelism %d: %s",
                                    buckets, maxParallelism, parallelism, java.util.Arrays.toString(perSubtask))
                            .isLessThanOrEqualTo(maxParallelism >= 16 * buckets ? 1 : 2);
                }
            }
        }
    }

    @Test
    void aBareBucketNumberIsNotARoutingKeyUnlessItHashesWhereTheRoutingWantsIt() {
        BucketRouting routing = new BucketRouting(4, 128);
        int bare = 0;
        for (int b = 0; b < 4; b++) {
            if (!routing.isRoutingKey(b)) {
                bare++;
            }
        }
        assertThat(bare)
                .as("bare bucket numbers this routing would not produce")
                .isPositive();
        assertThat(routing.isRoutingKey(-4)).isFalse();
    }
}
