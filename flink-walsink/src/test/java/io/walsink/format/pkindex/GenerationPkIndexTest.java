package io.walsink.format.pkindex;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.testing.AllocatorExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.file.LanceFileReader;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;

/**
 * The index files walsink writes against the ones lance-core 7.0.0's own BTree
 * ({@code createIndex(BTREE)} on a dataset holding the keys in row order, which is how walsink
 * built them before) writes for the same keys: same schemas with their metadata, same rows, same
 * file version. Keys are random (seed printed), distinct like a generation's, and handed over in
 * several batches.
 */
class GenerationPkIndexTest {
    /** The metadata a table's key column carries; the index's values column does not keep it. */
    private static final Map<String, String> PK = Map.of("lance-schema:unenforced-primary-key", "true");

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    static long seed(String test) {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + " (rerun with -Dwalsink.test.seed=" + seed + ")");
        return seed;
    }

    private static Field key(String name, ArrowType type) {
        return new Field(name, new FieldType(false, type, null, PK), null);
    }

    @Test
    void int64KeysOverManyPagesMatchLanceCore() throws Exception {
        long seed = seed("int64KeysOverManyPagesMatchLanceCore");
        Random random = new Random(seed);
        for (int rows : new int[] {1, 3, 4096, 4097, 20_000}) {
            compareOneColumn(
                    "int64 x" + rows,
                    new ArrowType.Int(64, true),
                    distinct(rows, () -> edgeOrRandomLong(random)),
                    (BigIntVector v, int i, Long value) -> v.setSafe(i, value),
                    seed);
        }
    }

    @Test
    void unsignedAndInt32KeysMatchLanceCore() throws Exception {
        long seed = seed("unsignedAndInt32KeysMatchLanceCore");
        Random random = new Random(seed);
        compareOneColumn(
                "uint64 (values >= 2^63 sort last)",
                new ArrowType.Int(64, false),
                distinct(9_000, () -> edgeOrRandomLong(random)),
                (UInt8Vector v, int i, Long value) -> v.setSafe(i, value),
                seed);
        compareOneColumn(
                "int32",
                new ArrowType.Int(32, true),
                distinct(5_000, random::nextInt),
                (IntVector v, int i, Integer value) -> v.setSafe(i, value),
                seed);
    }

    /** Narrower integers and timestamps: written from their sorted 64-bit encodings, signs flipped back. */
    @Test
    void narrowIntegerAndTimestampKeysMatchLanceCore() throws Exception {
        long seed = seed("narrowIntegerAndTimestampKeysMatchLanceCore");
        Random random = new Random(seed);
        compareOneColumn(
                "int8",
                new ArrowType.Int(8, true),
                distinct(200, () -> (byte) random.nextInt()),
                (TinyIntVector v, int i, Byte value) -> v.setSafe(i, value),
                seed);
        compareOneColumn(
                "int16",
                new ArrowType.Int(16, true),
                distinct(5_000, () -> (short) random.nextInt()),
                (SmallIntVector v, int i, Short value) -> v.setSafe(i, value),
                seed);
        compareOneColumn(
                "uint32 (values >= 2^31 sort last)",
                new ArrowType.Int(32, false),
                distinct(5_000, random::nextInt),
                (UInt4Vector v, int i, Integer value) -> v.setSafe(i, value),
                seed);
        compareOneColumn(
                "timestamp",
                new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
                distinct(5_000, () -> edgeOrRandomLong(random)),
                (TimeStampMicroVector v, int i, Long value) -> v.setSafe(i, value),
                seed);
    }

    @Test
    void stringAndBinaryKeysSortByTheirBytes() throws Exception {
        long seed = seed("stringAndBinaryKeysSortByTheirBytes");
        Random random = new Random(seed);
        // NUL, ASCII, two-byte, three-byte near the surrogates and four-byte characters: UTF-16
        // order (Java's String order) differs from byte order between the last two
        String[] pieces = {"", "\0", "a", "b", "ab", "é", "\uFFFD", "\uE000", "😀", "中"};
        List<String> strings = distinct(10_000, () -> {
            StringBuilder s = new StringBuilder();
            for (int n = random.nextInt(5); n > 0; n--) {
                s.append(pieces[random.nextInt(pieces.length)]);
            }
            return s.toString();
        });
        compareOneColumn(
                "utf8",
                ArrowType.Utf8.INSTANCE,
                strings,
                (VarCharVector v, int i, String value) -> v.setSafe(i, value.getBytes(StandardCharsets.UTF_8)),
                seed);
        compareOneColumn(
                "binary (bytes above 0x7f sort last)",
                ArrowType.Binary.INSTANCE,
                distinct(6_000, () -> HexFormat.of().formatHex(bytes(random, random.nextInt(6)))),
                (VarBinaryVector v, int i, String hex) ->
                        v.setSafe(i, HexFormat.of().parseHex(hex)),
                seed);
        compareOneColumn(
                "fixed-size binary",
                new ArrowType.FixedSizeBinary(4),
                distinct(3_000, () -> HexFormat.of().formatHex(bytes(random, 4))),
                (FixedSizeBinaryVector v, int i, String hex) ->
                        v.setSafe(i, HexFormat.of().parseHex(hex)),
                seed);
    }

    /** Sets row {@code row} of a key vector to {@code value}. */
    @FunctionalInterface
    private interface Setter<V extends FieldVector, T> {
        void set(V vector, int row, T value);
    }

    @SuppressWarnings("unchecked")
    private <V extends FieldVector, T> void compareOneColumn(
            String what, ArrowType type, List<T> keys, Setter<V, T> setter, long seed) throws Exception {
        compareWithLanceCore(
                List.of(key("k", type)),
                keys.size(),
                (root, i) -> setter.set((V) root.getVector(0), i, keys.get(i)),
                seed,
                what);
    }

    @Test
    void compositeKeysAreIndexedByTheirEncodingAsBinary() throws Exception {
        long seed = seed("compositeKeysAreIndexedByTheirEncodingAsBinary");
        Random random = new Random(seed);
        List<String> pairs = distinct(
                12_000,
                () -> (random.nextInt(8000) - 4000) + "|" + (char) ('a' + random.nextInt(3))
                        + (random.nextBoolean() ? "\0" : "") + (random.nextBoolean() ? "é" : ""));
        compareWithLanceCore(
                List.of(key("tenant", new ArrowType.Int(32, true)), key("name", ArrowType.Utf8.INSTANCE)),
                pairs.size(),
                (root, i) -> {
                    String[] pair = pairs.get(i).split("\\|", 2);
                    ((IntVector) root.getVector(0)).setSafe(i, Integer.parseInt(pair[0]));
                    ((VarCharVector) root.getVector(1)).setSafe(i, pair[1].getBytes(StandardCharsets.UTF_8));
                },
                seed,
                "int32 + utf8");
    }

    @Test
    void writesBothFilesIntoTheGenerationFolder() throws Exception {
        Field id = key("id", new ArrowType.Int(64, true));
        PrimaryKeyEncoder encoder = new PrimaryKeyEncoder(List.of(id));
        try (VectorSchemaRoot keys = VectorSchemaRoot.create(new Schema(List.of(id)), allocator);
                GenerationPkIndex index = new GenerationPkIndex(encoder, allocator)) {
            for (int i = 0; i < 3; i++) {
                ((BigIntVector) keys.getVector(0)).setSafe(i, 10 - i);
            }
            keys.setRowCount(3);
            index.add(encoder.keyColumns(keys), 0, 3);
            Path generation = dir.resolve("table/_mem_wal/s/abcdef01_gen_1");
            assertThat(index.write(generation.toString(), Map.of())).as("pages").isEqualTo(1);
            try (var files = Files.list(generation.resolve("_pk_index"))) {
                assertThat(files.map(f -> f.getFileName().toString()))
                        .containsExactlyInAnyOrder("page_lookup.lance", "page_data.lance");
            }
            assertThat(rows(generation.resolve("_pk_index/page_data.lance")))
                    .containsExactly(List.of("8", "2"), List.of("9", "1"), List.of("10", "0"));
            assertThat(rows(generation.resolve("_pk_index/page_lookup.lance")))
                    .containsExactly(List.of("8", "10", "0", "0"));
        }
    }

    /**
     * Fills {@code rows} rows of the key columns with {@code fill}, indexes them both ways and
     * compares the files.
     */
    private void compareWithLanceCore(
            List<Field> keyFields, int rows, BiConsumer<VectorSchemaRoot, Integer> fill, long seed, String what)
            throws Exception {
        PrimaryKeyEncoder encoder = new PrimaryKeyEncoder(keyFields);
        Path ours = Files.createDirectories(dir.resolve("ours-" + what.hashCode() + "-" + rows));
        Path theirs;
        try (VectorSchemaRoot keys = VectorSchemaRoot.create(new Schema(keyFields), allocator)) {
            for (int i = 0; i < rows; i++) {
                fill.accept(keys, i);
            }
            keys.setRowCount(rows);
            try (GenerationPkIndex index = new GenerationPkIndex(encoder, allocator)) {
                int from = 0;
                Random batches = new Random(seed);
                while (from < rows) { // several batches of uneven sizes, as the SSTable writer hands them over
                    int to = Math.min(rows, from + 1 + batches.nextInt(3000));
                    index.add(encoder.keyColumns(keys), from, to);
                    from = to;
                }
                assertThat(index.rows()).isEqualTo(rows);
                index.writeFiles(ours + "/", Map.of());
            }
            theirs = lanceCoreBTree(encoder, keys, dir.resolve("lance-" + what.hashCode() + "-" + rows + ".lance"));
        }
        for (String file : GenerationPkIndex.FILES) {
            String as = what + ", " + rows + " keys, " + file + ", seed " + seed;
            Path mine = ours.resolve(file);
            Path lance = theirs.resolve(file);
            assertThat(footerVersion(mine)).as(as).isEqualTo(footerVersion(lance));
            try (LanceFileReader a = LanceFileReader.open(mine.toString(), allocator);
                    LanceFileReader b = LanceFileReader.open(lance.toString(), allocator)) {
                assertThat(a.schema()).as(as).isEqualTo(b.schema());
                assertThat(a.schema().getCustomMetadata())
                        .as(as)
                        .isEqualTo(b.schema().getCustomMetadata());
            }
            List<List<Object>> expected = rows(lance);
            assertThat(rows(mine)).as(as).hasSize(expected.size()).isEqualTo(expected);
        }
        assertThat(rows(ours.resolve(GenerationPkIndex.LOOKUP_FILE)))
                .as("pages of %s", what)
                .hasSize((rows + GenerationPkIndex.PAGE_ROWS - 1) / GenerationPkIndex.PAGE_ROWS);
    }

    /** The oracle: lance-core's BTree on a dataset holding the index's values in row order. */
    private Path lanceCoreBTree(PrimaryKeyEncoder encoder, VectorSchemaRoot keys, Path uri) throws Exception {
        List<Field> keyFields = encoder.keyFields();
        Field values = keyFields.size() == 1
                ? new Field("values", keyFields.get(0).getFieldType(), null)
                : Field.notNullable("values", ArrowType.Binary.INSTANCE);
        try (VectorSchemaRoot column = VectorSchemaRoot.create(new Schema(List.of(values)), allocator)) {
            int rows = keys.getRowCount();
            if (keyFields.size() == 1) {
                keys.getVector(0).makeTransferPair(column.getVector(0)).splitAndTransfer(0, rows);
            } else {
                KeyBuffer key = new KeyBuffer();
                FieldVector[] columns = encoder.keyColumns(keys);
                for (int i = 0; i < rows; i++) {
                    encoder.encode(columns, i, key);
                    ((VarBinaryVector) column.getVector(0)).setSafe(i, key.array(), 0, key.length());
                }
            }
            column.setRowCount(rows);
            try (ArrowReader reader = new OneBatch(allocator, column);
                    Dataset written = Dataset.write()
                            .allocator(allocator)
                            .reader(reader)
                            .uri(uri.toString())
                            .mode(WriteParams.WriteMode.CREATE)
                            .maxRowsPerFile(Integer.MAX_VALUE)
                            .execute()) {
                assertThat(written.getFragments()).hasSize(1);
                Index index = written.createIndex(
                        List.of("values"),
                        IndexType.BTREE,
                        Optional.of("pk"),
                        IndexParams.builder()
                                .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                                .build(),
                        true);
                return uri.resolve("_indices").resolve(index.uuid().toString());
            }
        }
    }

    /** Every row of a Lance file, binary values as hex so that rows compare by content. */
    private List<List<Object>> rows(Path file) throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        try (LanceFileReader reader = LanceFileReader.open(file.toString(), allocator);
                ArrowReader batches = reader.readAll(null, null, 1000)) {
            while (batches.loadNextBatch()) {
                VectorSchemaRoot batch = batches.getVectorSchemaRoot();
                for (int i = 0; i < batch.getRowCount(); i++) {
                    List<Object> row = new ArrayList<>();
                    for (FieldVector v : batch.getFieldVectors()) {
                        Object value = v.getObject(i);
                        row.add(value instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(value));
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** The major and minor version in a Lance file's footer, before its magic. */
    private static String footerVersion(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer tail = ByteBuffer.wrap(bytes, bytes.length - 8, 8).order(ByteOrder.LITTLE_ENDIAN);
        return tail.getShort() + "." + tail.getShort() + " "
                + new String(bytes, bytes.length - 4, 4, StandardCharsets.US_ASCII);
    }

    private static <T> List<T> distinct(int n, java.util.function.Supplier<T> next) {
        Set<T> seen = new HashSet<>();
        List<T> out = new ArrayList<>();
        for (int tries = 0; out.size() < n && tries < 100 * n; tries++) {
            T value = next.get();
            if (seen.add(value)) {
                out.add(value);
            }
        }
        return out;
    }

    private static long edgeOrRandomLong(Random random) {
        long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE};
        return random.nextInt(50) == 0 ? edges[random.nextInt(edges.length)] : random.nextLong();
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int pick = random.nextInt(4);
            b[i] = pick == 0 ? 0 : pick == 1 ? (byte) 0xff : (byte) random.nextInt(256);
        }
        return b;
    }

    /** One batch handed to lance-core, its buffers shared. */
    private static final class OneBatch extends ArrowReader {
        private final VectorSchemaRoot source;
        private boolean done;

        OneBatch(BufferAllocator allocator, VectorSchemaRoot source) {
            super(allocator);
            this.source = source;
        }

        @Override
        public boolean loadNextBatch() {
            if (done) {
                return false;
            }
            done = true;
            loadRecordBatch(new VectorUnloader(source).getRecordBatch());
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {}

        @Override
        protected Schema readSchema() {
            return source.getSchema();
        }
    }
}
