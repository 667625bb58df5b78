package io.walsink.format.sharding;

import io.walsink.annotation.Internal;
import io.walsink.format.Murmur3;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The hash Lance's {@code bucket} sharding transform applies to one value, and the bucket it
 * selects (format.md section 7).
 *
 * <p>It is Murmur3 x86-32 with seed 0 except for the tail of a byte sequence: each byte left
 * after the last full 4-byte word is mixed as its own sign-extended block, where standard
 * Murmur3 (Guava, for example) packs the tail into one word. Reusing a library hash would
 * route keys to different buckets than Lance does, so this is written out here.
 */
@Internal
public final class BucketHash {

    public static final int MIN_BUCKETS = 1;
    public static final int MAX_BUCKETS = 1024;

    /** Bucket of a null value. */
    public static final int NULL_BUCKET = 0;

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private BucketHash() {}

    /** The bucket for a value with {@code hash}; {@code numBuckets} must be checked already. */
    public static int bucketOf(int hash, int numBuckets) {
        return (hash & 0x7fffffff) % numBuckets;
    }

    /** @throws IllegalArgumentException unless {@code numBuckets} is in [1, 1024] */
    public static int checkNumBuckets(int numBuckets) {
        if (numBuckets < MIN_BUCKETS || numBuckets > MAX_BUCKETS) {
            throw new IllegalArgumentException(
                    "num_buckets must be in [" + MIN_BUCKETS + ", " + MAX_BUCKETS + "], got " + numBuckets);
        }
        return numBuckets;
    }

    /** bool, int8/16/32, uint8/16/32 (zero-extended), date32, time32. */
    public static int hashInt(int value) {
        return finish(mixH(0, mixK(value)), 4);
    }

    public static int hashBoolean(boolean value) {
        return hashInt(value ? 1 : 0);
    }

    /** int64, uint64, timestamp, time64: low word first, as Lance hashes the little-endian bytes. */
    public static int hashLong(long value) {
        int h = mixH(0, mixK((int) value));
        h = mixH(h, mixK((int) (value >>> 32)));
        return finish(h, 8);
    }

    /** Both zeros hash alike and every NaN hashes as the canonical quiet NaN. */
    public static int hashFloat(float value) {
        if (value == 0.0f) {
            return hashInt(0);
        }
        return hashInt(Float.floatToIntBits(value)); // floatToIntBits already canonicalises NaN
    }

    /** Both zeros hash alike and every NaN hashes as the canonical quiet NaN. */
    public static int hashDouble(double value) {
        if (value == 0.0d) {
            return hashLong(0);
        }
        return hashLong(Double.doubleToLongBits(value)); // canonicalises NaN
    }

    /** utf8 and large utf8: the UTF-8 bytes of the string. */
    public static int hashString(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return hashBytes(bytes, 0, bytes.length);
    }

    public static int hashBytes(byte[] bytes) {
        return hashBytes(bytes, 0, bytes.length);
    }

    public static int hashBytes(byte[] bytes, int offset, int length) {
        int h = 0;
        int end = offset + length;
        int wordsEnd = offset + (length & ~3);
        int i = offset;
        for (; i < wordsEnd; i += 4) {
            int word =
                    (bytes[i] & 0xff) | (bytes[i + 1] & 0xff) << 8 | (bytes[i + 2] & 0xff) << 16 | bytes[i + 3] << 24;
            h = mixH(h, mixK(word));
        }
        for (; i < end; i++) {
            h = mixH(h, mixK(bytes[i]));
        }
        return finish(h, length);
    }

    /** Same as {@link #hashBytes(byte[], int, int)} over Arrow memory, without copying. */
    public static int hashBytes(ArrowBuf buf, long offset, int length) {
        int h = 0;
        long end = offset + length;
        long wordsEnd = offset + (length & ~3);
        long i = offset;
        for (; i < wordsEnd; i += 4) {
            // Arrow buffers are little-endian, which is the word order the hash expects.
            h = mixH(h, mixK(buf.getInt(i)));
        }
        for (; i < end; i++) {
            h = mixH(h, mixK(buf.getByte(i)));
        }
        return finish(h, length);
    }

    private static int mixK(int k) {
        return Integer.rotateLeft(k * C1, 15) * C2;
    }

    private static int mixH(int h, int k) {
        return Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64;
    }

    private static int finish(int h, int length) {
        return Murmur3.fmix32(h ^ length);
    }
}
