package io.walsink.format.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShardIdsTest {

    /**
     * Computed with a standard RFC 4122 version-5 implementation (Python's {@code uuid.uuid5})
     * over LanceDB's shard namespace and the names {@code bucket-<n>} and {@code unsharded}.
     */
    @Test
    void bucketIdsAreLanceDbsVersion5Ids() {
        assertThat(ShardIds.bucket(0)).isEqualTo(UUID.fromString("4a388480-a25b-59a8-b058-24217f980256"));
        assertThat(ShardIds.bucket(1)).isEqualTo(UUID.fromString("8e131bde-8368-54ff-89d9-c2e1cc781b29"));
        assertThat(ShardIds.bucket(2)).isEqualTo(UUID.fromString("e00299e4-8c4b-50fc-bbdd-ce8179135761"));
        assertThat(ShardIds.bucket(3)).isEqualTo(UUID.fromString("1d8d46d4-1ffd-5f6e-9aea-466d5ea76fdb"));
    }

    @Test
    void unshardedIdIsLanceDbsVersion5Id() {
        assertThat(ShardIds.unsharded()).isEqualTo(UUID.fromString("aa48498d-ac91-59e2-8452-69f46010ace2"));
    }

    @Test
    void idsAreVersion5Rfc4122AndDistinctOverEveryBucket() {
        Set<UUID> seen = new HashSet<>();
        for (int b = 0; b < 1024; b++) {
            UUID id = ShardIds.bucket(b);
            assertThat(id.version()).isEqualTo(5);
            assertThat(id.variant()).isEqualTo(2);
            assertThat(seen.add(id)).as("bucket %d", b).isTrue();
        }
        assertThat(seen).doesNotContain(ShardIds.unsharded());
    }

    @Test
    void namespaceSpellsLsmWriteShard01() {
        assertThat(ShardIds.NAMESPACE).isEqualTo(UUID.fromString("4c534d57-5249-5445-5f53-484152443031"));
    }

    @Test
    void legacyIdsAreTheVersion3IdsOfThePreviousRelease() {
        // What the previous release derived: UUID.nameUUIDFromBytes("flink-walsink/spec-<s>/bucket-<b>").
        assertThat(ShardIds.legacyBucket(1, 2))
                .isEqualTo(UUID.nameUUIDFromBytes("flink-walsink/spec-1/bucket-2".getBytes()));
        assertThat(ShardIds.legacyBucket(1, 2).version()).isEqualTo(3);
        assertThat(ShardIds.legacyBucket(1, 2)).isNotEqualTo(ShardIds.bucket(2));
    }

    @Test
    void bucketOfAnIdInvertsTheDerivation() {
        assertThat(ShardIds.bucketOf(ShardIds.bucket(17), 32)).hasValue(17);
        assertThat(ShardIds.bucketOf(ShardIds.bucket(17), 8)).isEmpty();
        assertThat(ShardIds.bucketOf(ShardIds.unsharded(), 8)).isEmpty();
        assertThat(ShardIds.legacyBucketOf(ShardIds.legacyBucket(3, 5), 3, 8)).hasValue(5);
        assertThat(ShardIds.legacyBucketOf(ShardIds.bucket(5), 3, 8)).isEmpty();
    }

    @Test
    void negativeBucketsAreRefused() {
        assertThatThrownBy(() -> ShardIds.bucket(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
