package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Memtable#appendRange} (a column range at a time) leaves exactly what appending the same
 * rows one by one leaves: the same batches, cut at the same rows, the same newest row per key,
 * the same byte counts; and the index chosen by the key's shape answers as the byte-key index.
 */
class MemtableBulkAppendTest {
    private static final Field ID = new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null);
    private static final Field LABEL = new Field("label", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    private static final Field NAME = new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    private static final Field FLAG = new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
    private static final Field N = new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null);
    private static final Field BIN = new Field("bin", FieldType.nullable(new ArrowType.FixedSizeBinary(4)), null);
    private static final Field BIG = new Field("big", FieldType.nullable(ArrowType.LargeUtf8.INSTANCE), null);
    private static final Field TAGS = new Field(
            "tags",
            FieldType.nullable(ArrowType.List.INSTANCE),
            List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    private static final Field TOMBSTONE =
            new Field("_tombstone", FieldType.notNullable(ArrowType.Bool.INSTANCE), null);
    private static final Schema INPUT = new Schema(List.of(ID, LABEL, NAME, FLAG, N, BIN, BIG, TAGS));
    private static final Schema STORAGE = new Schema(List.of(ID, LABEL, NAME, FLAG, N, BIN, BIG, TAGS, TOMBSTONE));
    private static final int TOMBSTONE_COLUMN = 8;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @ParameterizedTest
    @ValueSource(strings = {"id", "id,label", "label"})
    void rangesLeaveWhatRowByRowAppendsLeave(String keyColumns) {
        long seed = LongKeyIndexTest.seed("rangesLeaveWhatRowByRowAppendsLeave " + keyColumns);
        Random random = new Random(seed);
        PrimaryKeyEncoder keys = new PrimaryKeyEncoder(
                List.of(keyColumns.split(",")).stream().map(INPUT::findField).toList());
        int batchMaxRows = 1 + random.nextInt(300);
        // The byte-key index, fed the same keys at the same positions, is what every index must answer as.
        ByteKeyIndex reference = new ByteKeyIndex();
        long position = 0;
        try (Memtable bytes = new Memtable(allocator, STORAGE, 1, batchMaxRows, TOMBSTONE_COLUMN, keys, RowKeys.NONE);
                Memtable rows =
                        new Memtable(allocator, STORAGE, 1, batchMaxRows, TOMBSTONE_COLUMN, keys, RowKeys.NONE);
                Memtable ranges =
                        new Memtable(allocator, STORAGE, 1, batchMaxRows, TOMBSTONE_COLUMN, keys, RowKeys.NONE)) {
            KeyBuffer key = new KeyBuffer();
            for (int b = 0; b < 40; b++) {
                boolean delete = random.nextInt(5) == 0;
                try (VectorSchemaRoot in = randomBatch(random.nextInt(400), random)) {
                    FieldVector[] columns = keys.keyColumns(in);
                    for (int r = 0; r < in.getRowCount(); r++) {
                        keys.encode(columns, r, key);
                        bytes.append(in, r, delete, key.array(), key.length());
                        reference.put(key.array(), key.length(), position++);
                        rows.append(in, r, delete, columns);
                    }
                    // Random cuts, with the odd single-row append in between.
                    for (int from = 0; from < in.getRowCount(); ) {
                        if (random.nextInt(10) == 0) {
                            ranges.append(in, from++, delete, columns);
                            continue;
                        }
                        int to = Math.min(in.getRowCount(), from + 1 + random.nextInt(2 * batchMaxRows));
                        ranges.appendRange(in, from, to, delete, columns);
                        from = to;
                    }
                }
                if (random.nextInt(8) == 0) { // a size query in between, as the writer's checks do
                    assertThat(ranges.payloadBytes()).isEqualTo(rows.payloadBytes());
                }
            }
            assertSameRows(bytes, ranges, seed);
            assertSameRows(rows, ranges, seed);
            assertThat(ranges.primaryKeyIndexBytes()).isEqualTo(rows.primaryKeyIndexBytes());
            if (keyColumns.equals("id")) {
                assertThat(ranges.primaryKeyIndexBytes())
                        .as("the long index is smaller than the byte-key index")
                        .isLessThan(reference.memoryBytes());
            }
            assertThat(ranges.distinctKeys()).as("seed %d", seed).isEqualTo(reference.size());
            assertSameNewest(reference, ranges, keys, seed);
            assertSameNewest(reference, bytes, keys, seed);
        }
    }

    private static void assertSameRows(Memtable expected, Memtable actual, long seed) {
        assertThat(actual.rows()).as("seed %d", seed).isEqualTo(expected.rows());
        assertThat(actual.distinctKeys()).as("seed %d", seed).isEqualTo(expected.distinctKeys());
        assertThat(actual.payloadBytes()).as("seed %d", seed).isEqualTo(expected.payloadBytes());
        assertThat(actual.pendingBytes()).as("seed %d", seed).isEqualTo(expected.pendingBytes());
        expected.sealOpenBatch();
        actual.sealOpenBatch();
        assertThat(actual.sealedBatchCount()).as("seed %d", seed).isEqualTo(expected.sealedBatchCount());
        for (int i = 0; i < expected.sealedBatchCount(); i++) {
            assertThat(actual.batchStartRow(i)).isEqualTo(expected.batchStartRow(i));
            assertThat(cells(actual.sealedBatches().get(i)))
                    .as("batch %d, seed %d", i, seed)
                    .isEqualTo(cells(expected.sealedBatches().get(i)));
        }
    }

    /** Every value of the batch, row by row, byte arrays as hex (contentToTSVString prints their identity). */
    private static List<String> cells(VectorSchemaRoot batch) {
        List<String> rows = new ArrayList<>();
        for (int r = 0; r < batch.getRowCount(); r++) {
            StringBuilder row = new StringBuilder();
            for (FieldVector v : batch.getFieldVectors()) {
                Object value = v.getObject(r);
                row.append(value instanceof byte[] ? HexFormat.of().formatHex((byte[]) value) : String.valueOf(value))
                        .append('|');
            }
            rows.add(row.toString());
        }
        return rows;
    }

    /**
     * Every row of the memtable is the newest of its key exactly when the index has it as the
     * newest, asked row by row and as the SSTable writer asks, a batch at a time.
     */
    private static void assertSameNewest(KeyIndex expected, Memtable actual, PrimaryKeyEncoder keys, long seed) {
        KeyBuffer key = new KeyBuffer();
        int newest = 0;
        for (int i = 0; i < actual.sealedBatchCount(); i++) {
            VectorSchemaRoot batch = actual.sealedBatches().get(i);
            FieldVector[] columns = keys.keyColumns(batch);
            boolean[] marked = new boolean[batch.getRowCount()];
            int markedRows = actual.markNewest(i, marked);
            int newestOfBatch = newest;
            for (int r = 0; r < batch.getRowCount(); r++) {
                keys.encode(columns, r, key);
                long position = actual.batchStartRow(i) + r;
                boolean isNewest = actual.isNewest(position, key.array(), key.length());
                assertThat(isNewest)
                        .as("row %d, seed %d", position, seed)
                        .isEqualTo(expected.get(key.array(), key.length()) == position);
                assertThat(marked[r]).as("row %d, seed %d", position, seed).isEqualTo(isNewest);
                newest += isNewest ? 1 : 0;
            }
            assertThat(markedRows).as("batch %d, seed %d", i, seed).isEqualTo(newest - newestOfBatch);
        }
        assertThat(newest).isEqualTo(actual.distinctKeys());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 8, 13})
    void aRangeFromAnUnalignedRowCopiesItsValidityBits(int from) {
        PrimaryKeyEncoder keys = new PrimaryKeyEncoder(List.of(ID));
        try (Memtable m = new Memtable(allocator, STORAGE, 1, 1000, TOMBSTONE_COLUMN, keys, RowKeys.NONE);
                VectorSchemaRoot in = randomBatch(40, new Random(from))) {
            m.appendRange(in, from, 31, false, keys.keyColumns(in));
            m.sealOpenBatch();
            VectorSchemaRoot stored = m.sealedBatches().get(0);
            assertThat(stored.getRowCount()).isEqualTo(31 - from);
            for (int c = 0; c < INPUT.getFields().size(); c++) {
                for (int r = from; r < 31; r++) {
                    Object value = in.getVector(c).getObject(r);
                    assertThat(stored.getVector(c).getObject(r - from))
                            .as("column %s row %d", INPUT.getFields().get(c).getName(), r)
                            .satisfies(v -> assertThat(
                                            value instanceof byte[]
                                                    ? java.util.Arrays.equals((byte[]) v, (byte[]) value)
                                                    : java.util.Objects.equals(v, value))
                                    .isTrue());
                }
            }
            assertThat(((BitVector) stored.getVector(TOMBSTONE_COLUMN)).getNullCount())
                    .isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void rangesKeepTheMemtableRules(boolean keyed) {
        PrimaryKeyEncoder keys = new PrimaryKeyEncoder(List.of(ID));
        try (Memtable noTombstone = new Memtable(allocator, INPUT, 1, 10, -1, keyed ? keys : null, RowKeys.NONE);
                Memtable withKey = new Memtable(allocator, STORAGE, 1, 10, TOMBSTONE_COLUMN, keys, RowKeys.NONE);
                VectorSchemaRoot in = randomBatch(5, new Random(1))) {
            assertThatThrownBy(() -> noTombstone.appendRange(in, 0, 5, true, keys.keyColumns(in)))
                    .hasMessageContaining("no _tombstone column");
            noTombstone.appendRange(in, 0, 5, false, keyed ? keys.keyColumns(in) : null);
            assertThat(noTombstone.distinctKeys()).isEqualTo(keyed ? new java.util.HashSet<>(ids(in)).size() : 0);
            noTombstone.freeze();
            assertThatThrownBy(() -> noTombstone.appendRange(in, 0, 5, false, keys.keyColumns(in)))
                    .hasMessageContaining("frozen");
            assertThatThrownBy(() -> withKey.appendRange(in, 0, 5, false, null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("key columns");
        }
    }

    private static List<Long> ids(VectorSchemaRoot in) {
        List<Long> ids = new ArrayList<>();
        for (int r = 0; r < in.getRowCount(); r++) {
            ids.add(((BigIntVector) in.getVector(0)).get(r));
        }
        return ids;
    }

    /** Keys from a small range (many updates, negatives, Long.MIN/MAX), a fifth of values null. */
    private VectorSchemaRoot randomBatch(int count, Random random) {
        VectorSchemaRoot root = VectorSchemaRoot.create(INPUT, allocator);
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector label = (VarCharVector) root.getVector("label");
        VarCharVector name = (VarCharVector) root.getVector("name");
        BitVector flag = (BitVector) root.getVector("flag");
        IntVector n = (IntVector) root.getVector("n");
        FixedSizeBinaryVector bin = (FixedSizeBinaryVector) root.getVector("bin");
        LargeVarCharVector big = (LargeVarCharVector) root.getVector("big");
        ListVector tags = (ListVector) root.getVector("tags");
        UnionListWriter tagWriter = tags.getWriter();
        for (int r = 0; r < count; r++) {
            int pick = random.nextInt(20);
            id.setSafe(r, pick == 0 ? Long.MIN_VALUE : pick == 1 ? Long.MAX_VALUE : random.nextInt(200) - 100);
            label.setSafe(r, ("k" + random.nextInt(30)).getBytes(StandardCharsets.UTF_8));
            if (random.nextInt(5) > 0) {
                name.setSafe(
                        r,
                        ("name " + random.nextInt(1000))
                                .repeat(random.nextInt(3))
                                .getBytes(StandardCharsets.UTF_8));
            }
            if (random.nextInt(5) > 0) {
                flag.setSafe(r, random.nextInt(2));
            }
            if (random.nextInt(5) > 0) {
                n.setSafe(r, random.nextInt());
            }
            if (random.nextInt(5) > 0) {
                byte[] four = new byte[4];
                random.nextBytes(four);
                bin.setSafe(r, four);
            }
            if (random.nextInt(5) > 0) {
                big.setSafe(r, ("big " + random.nextLong()).getBytes(StandardCharsets.UTF_8));
            }
            if (random.nextInt(5) > 0) {
                tagWriter.setPosition(r);
                tagWriter.startList();
                for (int t = random.nextInt(4); t > 0; t--) {
                    tagWriter.writeInt(random.nextInt(100));
                }
                tagWriter.endList();
            }
        }
        root.setRowCount(count);
        return root;
    }
}
