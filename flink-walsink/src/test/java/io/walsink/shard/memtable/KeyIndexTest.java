package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.testing.AllocatorExtension;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The index is chosen by the key's shape, and both kinds agree on every integer-like key type,
 * down to the rows they mark as replaced.
 */
class KeyIndexTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    static List<ArrowType> integerLikeTypes() {
        return List.of(
                new ArrowType.Int(8, true),
                new ArrowType.Int(16, true),
                new ArrowType.Int(32, true),
                new ArrowType.Int(64, true),
                new ArrowType.Int(8, false),
                new ArrowType.Int(16, false),
                new ArrowType.Int(32, false),
                new ArrowType.Int(64, false),
                new ArrowType.Date(DateUnit.DAY),
                new ArrowType.Date(DateUnit.MILLISECOND),
                new ArrowType.Time(TimeUnit.MILLISECOND, 32),
                new ArrowType.Time(TimeUnit.MICROSECOND, 64),
                new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
    }

    private static Field key(String name, ArrowType type) {
        return new Field(name, FieldType.notNullable(type), null);
    }

    @Test
    void oneIntegerLikeColumnGetsTheLongIndexAndEverythingElseTheByteIndex() {
        for (ArrowType type : integerLikeTypes()) {
            assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(key("k", type)))))
                    .as("%s", type)
                    .isInstanceOf(LongKeyIndex.class);
        }
        Field id = key("id", new ArrowType.Int(64, true));
        Field name = key("name", ArrowType.Utf8.INSTANCE);
        assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(name)))).isInstanceOf(ByteKeyIndex.class);
        assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(id, id)))).isInstanceOf(ByteKeyIndex.class);
        assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(id, name)))).isInstanceOf(ByteKeyIndex.class);
        assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(key("b", ArrowType.Bool.INSTANCE)))))
                .isInstanceOf(ByteKeyIndex.class);
        assertThat(KeyIndex.forKey(new PrimaryKeyEncoder(List.of(key("f", new ArrowType.FixedSizeBinary(8))))))
                .isInstanceOf(ByteKeyIndex.class);
    }

    @ParameterizedTest
    @MethodSource("integerLikeTypes")
    void columnPathAndBytePathAgreeForBothIndexes(ArrowType type) {
        long seed = LongKeyIndexTest.seed("columnPathAndBytePathAgreeForBothIndexes " + type);
        Random random = new Random(seed);
        Field field = key("k", type);
        PrimaryKeyEncoder keys = new PrimaryKeyEncoder(List.of(field));
        int rows = 5_000;
        try (FieldVector column = field.createVector(allocator)) {
            fillRandom((BaseFixedWidthVector) column, rows, random);
            FieldVector[] columns = {column};
            LongKeyIndex longIndex = new LongKeyIndex(16);
            ByteKeyIndex byteIndex = new ByteKeyIndex();
            int split = random.nextInt(rows);
            SupersededRows longSuperseded = new SupersededRows();
            SupersededRows byteSuperseded = new SupersededRows();
            longIndex.putRange(keys, columns, 0, split, 0, longSuperseded);
            longIndex.putRange(keys, columns, split, rows, split, longSuperseded);
            byteIndex.putRange(keys, columns, 0, rows, 0, byteSuperseded);
            assertThat(longIndex.size()).as("seed %d", seed).isEqualTo(byteIndex.size());
            boolean[] longNewest = new boolean[rows];
            boolean[] byteNewest = new boolean[rows];
            assertThat(longSuperseded.markNewest(0, rows, longNewest)).isEqualTo(longIndex.size());
            assertThat(byteSuperseded.markNewest(0, rows, byteNewest)).isEqualTo(byteIndex.size());
            KeyBuffer key = new KeyBuffer();
            for (int r = 0; r < rows; r++) {
                keys.encode(columns, r, key);
                assertThat(KeyBuffer.longBits(key.array(), key.length())).isEqualTo(keys.singleLongBits(column, r));
                long newest = longIndex.get(key.array(), key.length());
                assertThat(newest)
                        .as("row %d, seed %d", r, seed)
                        .isEqualTo(byteIndex.get(key.array(), key.length()))
                        .isNotEqualTo(KeyIndex.ABSENT);
                assertThat(longNewest[r]).as("row %d, seed %d", r, seed).isEqualTo(newest == r);
                assertThat(byteNewest[r]).as("row %d, seed %d", r, seed).isEqualTo(newest == r);
            }
        }
    }

    /** Random bytes of the column's width; a third of the rows repeat an earlier row's value. */
    private static void fillRandom(BaseFixedWidthVector v, int rows, Random random) {
        v.allocateNew(rows);
        int width = v.getTypeWidth();
        byte[] value = new byte[width];
        for (int r = 0; r < rows; r++) {
            if (r > 0 && random.nextInt(3) == 0) {
                v.getDataBuffer()
                        .setBytes((long) r * width, v.getDataBuffer(), (long) random.nextInt(r) * width, width);
            } else {
                random.nextBytes(value);
                if (random.nextInt(8) == 0) {
                    java.util.Arrays.fill(value, random.nextBoolean() ? (byte) 0 : (byte) 0xff);
                }
                v.getDataBuffer().setBytes((long) r * width, value);
            }
            v.setIndexDefined(r);
        }
        v.setValueCount(rows);
    }
}
