package io.walsink.format.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Keys read from Arrow vectors: exact bytes, tuple order and prefix-freedom. */
class PrimaryKeyEncoderTest {

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static String hex(KeyBuffer key) {
        return HexFormat.ofDelimiter(" ").formatHex(key.toByteArray());
    }

    private static List<Field> fields(FieldVector... vectors) {
        List<Field> fields = new ArrayList<>();
        for (FieldVector v : vectors) {
            fields.add(v.getField());
        }
        return fields;
    }

    @Test
    void encodesEachSupportedRepresentationExactly() {
        try (TinyIntVector i8 = new TinyIntVector("i8", allocator);
                SmallIntVector i16 = new SmallIntVector("i16", allocator);
                UInt1Vector u8 = new UInt1Vector("u8", allocator);
                UInt4Vector u32 = new UInt4Vector("u32", allocator);
                DateDayVector date = new DateDayVector("d", allocator);
                TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", allocator, "UTC");
                BitVector bool = new BitVector("b", allocator);
                LargeVarCharVector ls = new LargeVarCharVector("ls", allocator);
                FixedSizeBinaryVector fixed = new FixedSizeBinaryVector("f", allocator, 2)) {
            i8.allocateNew(1);
            i8.set(0, -2);
            i16.allocateNew(1);
            i16.set(0, 258);
            u8.allocateNew(1);
            u8.set(0, 0xfe);
            u32.allocateNew(1);
            u32.set(0, 0x80000000);
            date.allocateNew(1);
            date.set(0, -1);
            ts.allocateNew(1);
            ts.set(0, 1L << 40);
            bool.allocateNew(1);
            bool.set(0, 1);
            ls.allocateNew();
            ls.setSafe(0, "x\u0000".getBytes(StandardCharsets.UTF_8));
            fixed.allocateNew(1);
            fixed.set(0, new byte[] {0, 7});
            FieldVector[] columns = {i8, i16, u8, u32, date, ts, bool, ls, fixed};
            for (FieldVector v : columns) {
                v.setValueCount(1);
            }
            KeyBuffer key = new PrimaryKeyEncoder(fields(columns)).encode(columns, 0, new KeyBuffer());
            assertThat(hex(key))
                    .isEqualTo(String.join(
                            " ",
                            "01 7f ff ff ff ff ff ff fe", // int8 -2
                            "01 80 00 00 00 00 00 01 02", // int16 258
                            "01 00 00 00 00 00 00 00 fe", // uint8 254, not sign-extended
                            "01 00 00 00 00 80 00 00 00", // uint32 2^31
                            "01 7f ff ff ff ff ff ff ff", // date32 -1
                            "01 80 00 01 00 00 00 00 00", // timestamp 2^40
                            "01 01", // true
                            "01 78 00 ff 00 00", // "x\0"
                            "01 00 ff 07 00 00")); // fixed 00 07
        }
    }

    @Test
    void nullColumnsWriteOnlyTheMarkerAndTheBufferIsReplaced() {
        try (BigIntVector id = new BigIntVector(
                        new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null), allocator);
                VarCharVector name = new VarCharVector("name", allocator)) {
            id.allocateNew(1);
            id.setNull(0);
            id.setValueCount(1);
            name.allocateNew();
            name.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
            name.setValueCount(1);
            FieldVector[] columns = {id, name};
            KeyBuffer reused = new KeyBuffer().appendSigned(99);
            new PrimaryKeyEncoder(fields(columns)).encode(columns, 0, reused);
            assertThat(hex(reused)).isEqualTo("00 01 61 00 00");
        }
    }

    @Test
    void floatsAndOtherTypesAreRefusedByName() {
        Field price = new Field(
                "price", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null);
        assertThatThrownBy(() -> new PrimaryKeyEncoder(List.of(price)))
                .isInstanceOf(UnsupportedKeyTypeException.class)
                .hasMessageContaining("'price'")
                .hasMessageContaining("FloatingPoint(DOUBLE)")
                .hasMessageContaining("NaN");
        Field amount = new Field("amount", FieldType.notNullable(new ArrowType.Decimal(10, 2, 128)), null);
        assertThatThrownBy(() -> new PrimaryKeyEncoder(List.of(amount)))
                .isInstanceOf(UnsupportedKeyTypeException.class)
                .hasMessageContaining("'amount'")
                .hasMessageContaining("Decimal");
        assertThatThrownBy(() -> new PrimaryKeyEncoder(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyColumnsAreFoundByNameAndTypeChecked() {
        try (BigIntVector id = new BigIntVector("id", allocator);
                VarCharVector other = new VarCharVector("other", allocator)) {
            VectorSchemaRoot batch = VectorSchemaRoot.of(other, id);
            PrimaryKeyEncoder encoder = new PrimaryKeyEncoder(List.of(id.getField()));
            assertThat(encoder.keyColumns(batch)).containsExactly(id);
            PrimaryKeyEncoder wrongType = new PrimaryKeyEncoder(
                    List.of(new Field("other", FieldType.nullable(new ArrowType.Int(64, true)), null)));
            assertThatThrownBy(() -> wrongType.keyColumns(batch)).hasMessageContaining("other");
        }
    }

    /** One row of the property test: (int64?, utf8?, binary?, uint32, bool). */
    private record Tuple(Long id, String name, byte[] blob, long unsigned, boolean flag) {
        @Override
        public String toString() {
            return "(" + id + ", " + (name == null ? null : '"' + name.replace("\u0000", "\\0") + '"') + ", "
                    + (blob == null ? null : HexFormat.of().formatHex(blob)) + ", " + unsigned + ", " + flag + ")";
        }
    }

    private static final Comparator<Long> NULLS_FIRST_LONG = Comparator.nullsFirst(Comparator.naturalOrder());

    private static int compareTuples(Tuple a, Tuple b) {
        int c = NULLS_FIRST_LONG.compare(a.id, b.id);
        if (c == 0) {
            c = compareNullableBytes(utf8OrNull(a.name), utf8OrNull(b.name));
        }
        if (c == 0) {
            c = compareNullableBytes(a.blob, b.blob);
        }
        if (c == 0) {
            c = Long.compareUnsigned(a.unsigned, b.unsigned);
        }
        if (c == 0) {
            c = Boolean.compare(a.flag, b.flag);
        }
        return c;
    }

    private static byte[] utf8OrNull(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static int compareNullableBytes(byte[] a, byte[] b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return Arrays.compareUnsigned(a, b);
    }

    @Test
    void encodedBytesOrderLikeTuplesAndNeverPrefixEachOther() {
        int rows = 3000;
        SplittableRandom random = new SplittableRandom(11);
        String[] names = {"", "a", "ab", "a\u0000", "a\u0000b", "\u0000", "b", "ü", "aü", "\u0000\u0000"};
        byte[][] blobs = {{}, {0}, {0, 0}, {(byte) 0xff}, {0, (byte) 0xff}, {(byte) 0xff, 0}, {1}, {0, 1}};
        long[] ids = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, 255, 256};
        List<Tuple> tuples = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            tuples.add(new Tuple(
                    random.nextInt(6) == 0 ? null : ids[random.nextInt(ids.length)],
                    random.nextInt(6) == 0 ? null : names[random.nextInt(names.length)],
                    random.nextInt(6) == 0 ? null : blobs[random.nextInt(blobs.length)],
                    random.nextBoolean() ? random.nextInt() & 0xffffffffL : random.nextInt(3),
                    random.nextBoolean()));
        }
        try (BigIntVector id = new BigIntVector("id", allocator);
                VarCharVector name = new VarCharVector("name", allocator);
                VarBinaryVector blob = new VarBinaryVector("blob", allocator);
                UInt4Vector unsigned = new UInt4Vector("u", allocator);
                BitVector flag = new BitVector("flag", allocator)) {
            id.allocateNew(rows);
            name.allocateNew(rows);
            blob.allocateNew(rows);
            unsigned.allocateNew(rows);
            flag.allocateNew(rows);
            for (int row = 0; row < rows; row++) {
                Tuple t = tuples.get(row);
                if (t.id == null) {
                    id.setNull(row);
                } else {
                    id.set(row, t.id);
                }
                if (t.name == null) {
                    name.setNull(row);
                } else {
                    name.setSafe(row, t.name.getBytes(StandardCharsets.UTF_8));
                }
                if (t.blob == null) {
                    blob.setNull(row);
                } else {
                    blob.setSafe(row, t.blob);
                }
                unsigned.set(row, (int) t.unsigned);
                flag.set(row, t.flag ? 1 : 0);
            }
            FieldVector[] columns = {id, name, blob, unsigned, flag};
            for (FieldVector v : columns) {
                v.setValueCount(rows);
            }
            PrimaryKeyEncoder encoder = new PrimaryKeyEncoder(fields(columns));
            KeyBuffer scratch = new KeyBuffer(4);
            byte[][] keys = new byte[rows][];
            for (int row = 0; row < rows; row++) {
                keys[row] = encoder.encode(columns, row, scratch).toByteArray();
            }
            int unequalPairs = 0;
            for (int i = 0; i < 200_000; i++) {
                int a = random.nextInt(rows);
                int b = random.nextInt(rows);
                int expected = Integer.signum(compareTuples(tuples.get(a), tuples.get(b)));
                int actual = Integer.signum(Arrays.compareUnsigned(keys[a], keys[b]));
                if (actual != expected) {
                    fail("bytes compare %d, tuples %d: %s vs %s", actual, expected, tuples.get(a), tuples.get(b));
                }
                if (expected != 0) {
                    unequalPairs++;
                    if (isPrefix(keys[a], keys[b]) || isPrefix(keys[b], keys[a])) {
                        fail("one key is a prefix of the other: %s vs %s", tuples.get(a), tuples.get(b));
                    }
                }
            }
            assertThat(unequalPairs).isGreaterThan(100_000);
        }
    }

    private static boolean isPrefix(byte[] prefix, byte[] whole) {
        return prefix.length <= whole.length && Arrays.equals(prefix, 0, prefix.length, whole, 0, prefix.length);
    }
}
