package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * Shard ids as Lance's writers derive them, so that every writer of a table puts a bucket's rows
 * into the same shard: LanceDB's MemWAL write path names the shard of bucket {@code b} by the RFC
 * 4122 version-5 UUID of the name {@code bucket-<b>} (decimal, no padding) in the namespace
 * {@link #NAMESPACE}, and the single shard of an unsharded table by the name {@code unsharded}.
 * Spec id, column and bucket count are not part of the name.
 *
 * <p>{@link #legacyBucket} is what flink-walsink derived before (a version-3 UUID of {@code
 * flink-walsink/spec-<s>/bucket-<b>}); it is kept only to recognise tables written that way.
 */
@Internal
public final class ShardIds {
    /** LanceDB's shard namespace; its 16 bytes spell {@code LSMWRITE_SHARD01} in ASCII. */
    public static final UUID NAMESPACE = UUID.fromString("4c534d57-5249-5445-5f53-484152443031");

    private ShardIds() {}

    /** The shard of bucket {@code bucket} of a bucket-sharded table. */
    public static UUID bucket(int bucket) {
        if (bucket < 0) {
            throw new IllegalArgumentException("bucket must be >= 0, got " + bucket);
        }
        return version5(NAMESPACE, ("bucket-" + bucket).getBytes(StandardCharsets.UTF_8));
    }

    /** The one shard of an unsharded table. */
    public static UUID unsharded() {
        return version5(NAMESPACE, "unsharded".getBytes(StandardCharsets.UTF_8));
    }

    /** The bucket in {@code [0, numBuckets)} whose Lance-derived id is {@code id}, if any. */
    public static OptionalInt bucketOf(UUID id, int numBuckets) {
        if (id.version() != 5) {
            return OptionalInt.empty();
        }
        for (int b = 0; b < numBuckets; b++) {
            if (bucket(b).equals(id)) {
                return OptionalInt.of(b);
            }
        }
        return OptionalInt.empty();
    }

    /** The id earlier flink-walsink releases derived for a bucket (or, as bucket 0, an unsharded table). */
    public static UUID legacyBucket(int specId, int bucket) {
        return UUID.nameUUIDFromBytes(
                ("flink-walsink/spec-" + specId + "/bucket-" + bucket).getBytes(StandardCharsets.UTF_8));
    }

    /** The bucket in {@code [0, numBuckets)} whose legacy id under {@code specId} is {@code id}, if any. */
    public static OptionalInt legacyBucketOf(UUID id, int specId, int numBuckets) {
        if (id.version() != 3) {
            return OptionalInt.empty();
        }
        for (int b = 0; b < numBuckets; b++) {
            if (legacyBucket(specId, b).equals(id)) {
                return OptionalInt.of(b);
            }
        }
        return OptionalInt.empty();
    }

    /** RFC 4122 section 4.3 with SHA-1: hash namespace bytes then name, keep 16 bytes, set version 5 and variant. */
    static UUID version5(UUID namespace, byte[] name) {
        MessageDigest sha1;
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK provides no SHA-1", e); // every Java SE runtime has it
        }
        sha1.update(ByteBuffer.allocate(16)
                .putLong(namespace.getMostSignificantBits())
                .putLong(namespace.getLeastSignificantBits())
                .array());
        byte[] hash = sha1.digest(name);
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x50);
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80);
        ByteBuffer bytes = ByteBuffer.wrap(hash, 0, 16);
        return new UUID(bytes.getLong(), bytes.getLong());
    }
}
