package io.walsink.format.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Arrow-vector entry points against the format.md vectors and the scalar hash. */
class BucketAssignerTest {

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void int32ColumnWithNull() {
        try (IntVector v = new IntVector("id", allocator)) {
            v.allocateNew(4);
            v.set(0, 1);
            v.set(1, 2);
            v.set(2, 3);
            v.setNull(3);
            v.setValueCount(4);
            int[] out = new int[4];
            BucketAssigner.assign(v, 8, out);
            assertThat(out).containsExactly(2, 7, 1, 0);
            assertThat(BucketAssigner.bucketOf(v, 1, 8)).isEqualTo(7);
        }
    }

    @Test
    void int64ColumnOverTwoBuckets() {
        long[] ids = {1, 2, 3, 4, 10, 11, 12, 13};
        try (BigIntVector v = new BigIntVector("id", allocator)) {
            v.allocateNew(ids.length);
            for (int i = 0; i < ids.length; i++) {
                v.set(i, ids[i]);
            }
            v.setValueCount(ids.length);
            int[] out = new int[ids.length];
            BucketAssigner.of(v.getField().getType(), 2).assign(v, out);
            assertThat(out).containsExactly(0, 0, 1, 0, 0, 1, 0, 1);
        }
    }

    @Test
    void stringBoolAndFloatColumns() {
        try (VarCharVector s = new VarCharVector("s", allocator);
                BitVector b = new BitVector("b", allocator);
                Float4Vector f = new Float4Vector("f", allocator);
                Float8Vector d = new Float8Vector("d", allocator)) {
            s.allocateNew();
            s.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
            s.setSafe(1, "b".getBytes(StandardCharsets.UTF_8));
            s.setSafe(2, "abcde".getBytes(StandardCharsets.UTF_8));
            s.setNull(3);
            s.setValueCount(4);
            int[] out = new int[4];
            BucketAssigner.assign(s, 8, out);
            assertThat(out).containsExactly(1, 5, BucketHash.bucketOf(-1811849892, 8), 0);

            b.allocateNew(1);
            b.set(0, 1);
            b.setValueCount(1);
            assertThat(BucketAssigner.bucketOf(b, 0, 8)).isEqualTo(2);

            f.allocateNew(1);
            f.set(0, 1.25f);
            f.setValueCount(1);
            assertThat(BucketAssigner.bucketOf(f, 0, 8)).isZero();

            d.allocateNew(2);
            d.set(0, 1.25d);
            d.set(1, -0.0d);
            d.setValueCount(2);
            assertThat(BucketAssigner.bucketOf(d, 0, 8)).isZero();
            assertThat(BucketAssigner.bucketOf(d, 1, 1024))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashLong(0), 1024));
        }
    }

    @Test
    void unsignedValuesAreZeroExtended() {
        try (UInt1Vector u8 = new UInt1Vector("u8", allocator);
                UInt2Vector u16 = new UInt2Vector("u16", allocator);
                UInt4Vector u32 = new UInt4Vector("u32", allocator);
                UInt8Vector u64 = new UInt8Vector("u64", allocator)) {
            u8.allocateNew(1);
            u8.set(0, 0xff);
            u8.setValueCount(1);
            u16.allocateNew(1);
            u16.set(0, 0xffff);
            u16.setValueCount(1);
            u32.allocateNew(1);
            u32.set(0, 0xffffffff);
            u32.setValueCount(1);
            u64.allocateNew(1);
            u64.set(0, -1L);
            u64.setValueCount(1);
            assertThat(BucketAssigner.bucketOf(u8, 0, 1024))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashInt(255), 1024));
            assertThat(BucketAssigner.bucketOf(u16, 0, 1024))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashInt(65535), 1024));
            assertThat(BucketAssigner.bucketOf(u32, 0, 1024))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashInt(-1), 1024));
            assertThat(BucketAssigner.bucketOf(u64, 0, 1024))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashLong(-1L), 1024));
        }
    }

    @Test
    void largeBinaryHashesItsBytes() {
        try (LargeVarBinaryVector v = new LargeVarBinaryVector("bin", allocator)) {
            byte[] value = {0, (byte) 0xff, 1, 2, 3, (byte) 0x80, 7};
            v.allocateNew();
            v.setSafe(0, new byte[0]);
            v.setSafe(1, value);
            v.setValueCount(2);
            assertThat(BucketAssigner.bucketOf(v, 0, 1000))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashBytes(new byte[0]), 1000));
            assertThat(BucketAssigner.bucketOf(v, 1, 1000))
                    .isEqualTo(BucketHash.bucketOf(BucketHash.hashBytes(value), 1000));
        }
    }

    @Test
    void unsupportedTypesAreNamed() {
        try (DecimalVector dec = new DecimalVector("price", allocator, 10, 2);
                DateMilliVector date64 = new DateMilliVector("d", allocator)) {
            assertThatThrownBy(() -> BucketAssigner.assign(dec, 8, new int[0]))
                    .isInstanceOf(UnsupportedBucketTypeException.class)
                    .hasMessageContaining("Decimal(10, 2, 128)");
            assertThatThrownBy(() -> BucketAssigner.of(date64.getField().getType(), 8))
                    .isInstanceOf(UnsupportedBucketTypeException.class)
                    .hasMessageContaining("Date(MILLISECOND)");
        }
        assertThatThrownBy(() -> BucketAssigner.of(ArrowType.Null.INSTANCE, 8)).hasMessageContaining("Null");
    }

    @Test
    void bucketCountAndVectorTypeAreChecked() {
        assertThatThrownBy(() -> BucketAssigner.of(new ArrowType.Int(32, true), 0))
                .hasMessageContaining("got 0");
        assertThatThrownBy(() -> BucketAssigner.of(new ArrowType.Int(32, true), 2000))
                .hasMessageContaining("got 2000");
        try (BigIntVector v = new BigIntVector("id", allocator)) {
            v.allocateNew(1);
            v.setValueCount(1);
            BucketAssigner int32 = BucketAssigner.of(new ArrowType.Int(32, true), 8);
            assertThatThrownBy(() -> int32.assign(v, new int[1])).hasMessageContaining("INT32");
            BucketAssigner int64 = BucketAssigner.of(v.getField().getType(), 8);
            assertThatThrownBy(() -> int64.assign(v, new int[0])).hasMessageContaining("1 rows");
        }
    }

    @Test
    void lanceCoreSupportIsReportedPerType() {
        assertThat(BucketSourceType.lanceCoreEvaluates(ArrowType.Utf8.INSTANCE)).isTrue();
        assertThat(BucketSourceType.lanceCoreEvaluates(ArrowType.Binary.INSTANCE))
                .isFalse();
        assertThat(BucketSourceType.lanceCoreEvaluates(ArrowType.LargeBinary.INSTANCE))
                .isFalse();
        assertThat(BucketSourceType.lanceCoreEvaluates(new ArrowType.Decimal(10, 2, 128)))
                .isFalse();
        assertThat(BucketSourceType.of(ArrowType.Binary.INSTANCE)).isEqualTo(BucketSourceType.BYTES);
    }
}
