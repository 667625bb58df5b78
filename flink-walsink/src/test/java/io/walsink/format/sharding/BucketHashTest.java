package io.walsink.format.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** The scalar hash against the vectors in format.md section 7. */
class BucketHashTest {

    private static int bucket(int hash) {
        return BucketHash.bucketOf(hash, 8);
    }

    @Test
    void int32Vectors() {
        assertThat(bucket(BucketHash.hashInt(1))).isEqualTo(2);
        assertThat(bucket(BucketHash.hashInt(2))).isEqualTo(7);
        assertThat(bucket(BucketHash.hashInt(3))).isEqualTo(1);
        assertThat(BucketHash.NULL_BUCKET).isZero();
    }

    @Test
    void int64Vectors() {
        int[] expected = {4, 4, 3, 6, 7};
        for (int v = 1; v <= 5; v++) {
            assertThat(bucket(BucketHash.hashLong(v))).as("int64 %d", v).isEqualTo(expected[v - 1]);
        }
        long[] ids = {1, 2, 3, 4, 10, 11, 12, 13};
        int[] twoBuckets = {0, 0, 1, 0, 0, 1, 0, 1};
        for (int i = 0; i < ids.length; i++) {
            assertThat(BucketHash.bucketOf(BucketHash.hashLong(ids[i]), 2))
                    .as("int64 %d over 2 buckets", ids[i])
                    .isEqualTo(twoBuckets[i]);
        }
    }

    @Test
    void otherTypeVectors() {
        assertThat(bucket(BucketHash.hashString("a"))).isEqualTo(1);
        assertThat(bucket(BucketHash.hashString("b"))).isEqualTo(5);
        assertThat(bucket(BucketHash.hashBoolean(true))).isEqualTo(2);
        assertThat(bucket(BucketHash.hashFloat(1.25f))).isEqualTo(0);
        assertThat(bucket(BucketHash.hashDouble(1.25d))).isEqualTo(0);
    }

    @Test
    void tailBytesAreMixedOneByOneUnlikeStandardMurmur3() {
        assertThat(BucketHash.hashString("abcde")).isEqualTo(-1811849892);
        assertThat(BucketHash.hashString("abcde")).isNotEqualTo(-392455434);
    }

    @Test
    void tailBytesAreSignExtended() {
        // One high byte: sign-extended (0xffffff80) and zero-extended (0x80) blocks differ.
        byte[] high = {(byte) 0x80};
        int signExtended = BucketHash.hashBytes(high);
        assertThat(signExtended).isNotEqualTo(BucketHash.hashBytes(new byte[] {0x7f}));
        // A full word is read little-endian: bytes 01 00 00 00 mix like the int 1 (length differs
        // in the finaliser only, which both use as 4).
        assertThat(BucketHash.hashBytes(new byte[] {1, 0, 0, 0})).isEqualTo(BucketHash.hashInt(1));
    }

    @Test
    void zerosAndNaNsAreCanonical() {
        assertThat(BucketHash.hashFloat(-0.0f)).isEqualTo(BucketHash.hashFloat(0.0f));
        assertThat(BucketHash.hashFloat(0.0f)).isEqualTo(BucketHash.hashInt(0));
        assertThat(BucketHash.hashFloat(Float.intBitsToFloat(0x7fc00001))).isEqualTo(BucketHash.hashInt(0x7fc00000));
        assertThat(BucketHash.hashFloat(Float.intBitsToFloat(0xffc00000))).isEqualTo(BucketHash.hashInt(0x7fc00000));
        assertThat(BucketHash.hashDouble(-0.0d)).isEqualTo(BucketHash.hashLong(0));
        assertThat(BucketHash.hashDouble(Double.longBitsToDouble(0xfff8000000000123L)))
                .isEqualTo(BucketHash.hashLong(0x7ff8000000000000L));
        assertThat(BucketHash.hashFloat(-1.5f)).isNotEqualTo(BucketHash.hashFloat(1.5f));
    }

    @Test
    void arrowBufferAndArrayAgreeForEveryTailLength() {
        SplittableRandom random = new SplittableRandom(7);
        try (BufferAllocator allocator = new RootAllocator();
                ArrowBuf buf = allocator.buffer(64)) {
            for (int length = 0; length <= 40; length++) {
                for (int offset = 0; offset < 4; offset++) {
                    byte[] bytes = new byte[offset + length];
                    random.nextBytes(bytes);
                    buf.setBytes(0, bytes);
                    assertThat(BucketHash.hashBytes(buf, offset, length))
                            .as("length %d offset %d", length, offset)
                            .isEqualTo(BucketHash.hashBytes(bytes, offset, length));
                }
            }
        }
    }

    @Test
    void stringsHashTheirUtf8Bytes() {
        String s = "grüße, 世界";
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        assertThat(BucketHash.hashString(s)).isEqualTo(BucketHash.hashBytes(utf8));
    }

    @Test
    void bucketsAreNonNegativeForNegativeHashes() {
        assertThat(BucketHash.bucketOf(Integer.MIN_VALUE, 7)).isZero();
        assertThat(BucketHash.bucketOf(-1, 1024)).isEqualTo(Integer.MAX_VALUE % 1024);
    }

    @Test
    void bucketCountMustBeWithinLanceLimits() {
        assertThat(BucketHash.checkNumBuckets(1)).isEqualTo(1);
        assertThat(BucketHash.checkNumBuckets(1024)).isEqualTo(1024);
        assertThatThrownBy(() -> BucketHash.checkNumBuckets(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 0");
        assertThatThrownBy(() -> BucketHash.checkNumBuckets(1025)).hasMessageContaining("got 1025");
        assertThatThrownBy(() -> BucketHash.checkNumBuckets(-3)).hasMessageContaining("-3");
    }
}
