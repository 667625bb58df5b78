package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The primary-key index of a flushed generation: a BTree from each key to its row offset, two files
 * ({@code page_lookup.lance}, {@code page_data.lance}) in {@code _pk_index/} of the generation folder.
 *
 * <p>Lance's MemWAL readers (Lance 10 inside LanceDB) open it for every flushed generation of a
 * scan and fail without it. It is not registered in any manifest: a reader finds it by its place.
 * A one-column key is indexed by its value; a composite key by its order-preserving encoding (format.md
 * section 6, the encoding Lance's readers probe with) in one binary column.
 *
 * <p>lance-core builds the BTree, on a scratch dataset holding just the generation's keys in row
 * order (one fragment, id 0, so its row ids are the generation's row offsets); the two files are then
 * placed in the table. The generation dataset itself is left as written. Built before the generation
 * is published, so a published generation always has it.
 */
@Internal
public final class GenerationPkIndex {
    /** The folder, relative to the generation folder. */
    public static final String FOLDER = "_pk_index/";

    static final List<String> FILES = List.of("page_lookup.lance", "page_data.lance");
    private static final String VALUES = "values";

    private GenerationPkIndex() {}

    /**
     * Builds the index of {@code generation} and places its files in {@code _pk_index/} of {@code
     * folderKey}.
     *
     * @param generation the generation's dataset, as just written (one fragment)
     * @param keys the table's primary key
     * @param store the table's object store (keys relative to the table root)
     * @param folderKey the generation folder's key in {@code store}, ending in {@code /}
     * @param scratchParent a local folder for the scratch dataset (removed before returning)
     * @return the bytes of the index files
     */
    public static long write(
            Dataset generation,
            PrimaryKeyEncoder keys,
            BufferAllocator allocator,
            ObjectStore store,
            String folderKey,
            Path scratchParent) {
        if (!folderKey.endsWith("/")) {
            throw new IllegalArgumentException("folder key must end in '/': " + folderKey);
        }
        if (generation.getFragments().size() != 1) {
            throw new FormatException(folderKey, "a generation must be one fragment for its key index", null);
        }
        Path scratch;
        try {
            Files.createDirectories(scratchParent);
            scratch = Files.createTempDirectory(scratchParent, "walsink-pk-index-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch folder in " + scratchParent, e);
        }
        try {
            Path built = build(generation, keys, allocator, scratch.resolve("keys.lance"));
            long bytes = 0;
            for (String name : FILES) {
                Path file = built.resolve(name);
                if (!Files.isRegularFile(file)) {
                    throw new FormatException(
                            built.toString(),
                            "lance-core's BTree index has no " + name + " (" + list(built) + ")",
                            null);
                }
                byte[] data = Files.readAllBytes(file);
                place(store, folderKey + FOLDER + name, data);
                bytes += data.length;
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("building the key index of " + folderKey + " failed", e);
        } finally {
            delete(scratch);
        }
    }

    /** Writes the keys as a one-column dataset at {@code uri}, indexes them; the index folder. */
    private static Path build(Dataset generation, PrimaryKeyEncoder keys, BufferAllocator allocator, Path uri)
            throws IOException {
        List<Field> keyFields = keys.keyFields();
        boolean single = keyFields.size() == 1;
        Field values = single
                ? new Field(VALUES, keyFields.get(0).getFieldType(), null)
                : Field.notNullable(VALUES, ArrowType.Binary.INSTANCE);
        ScanOptions scan = new ScanOptions.Builder()
                .columns(keyFields.stream().map(Field::getName).toList())
                .build();
        try (LanceScanner scanner = LanceScanner.create(generation, scan, allocator);
                ArrowReader rows = scanner.scanBatches();
                ArrowReader keyValues = new KeyValuesReader(allocator, new Schema(List.of(values)), rows, keys);
                Dataset written = Dataset.write()
                        .allocator(allocator)
                        .reader(keyValues)
                        .uri(uri.toString())
                        .mode(WriteParams.WriteMode.CREATE)
                        .maxRowsPerFile(Integer.MAX_VALUE)
                        .execute()) {
            if (written.getFragments().size() != 1
                    || written.getFragments().get(0).getId() != 0) {
                throw new FormatException(uri.toString(), "the scratch key dataset is not one fragment 0", null);
            }
            if (written.countRows() != generation.countRows()) {
                throw new FormatException(
                        uri.toString(),
                        "holds " + written.countRows() + " keys for " + generation.countRows() + " rows",
                        null);
            }
            Index index = written.createIndex(
                    List.of(VALUES),
                    IndexType.BTREE,
                    Optional.of("pk"),
                    IndexParams.builder()
                            .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                            .build(),
                    true);
            return uri.resolve("_indices").resolve(index.uuid().toString());
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // closing the scanner
            throw new IOException(e);
        }
    }

    /**
     * The generation's key columns as the index's one column, batch by batch in row order: the key
     * column itself, or each row's encoded composite key.
     */
    private static final class KeyValuesReader extends ArrowReader {
        private final Schema schema;
        private final ArrowReader rows;
        private final PrimaryKeyEncoder keys;
        private final KeyBuffer key = new KeyBuffer();

        KeyValuesReader(BufferAllocator allocator, Schema schema, ArrowReader rows, PrimaryKeyEncoder keys) {
            super(allocator);
            this.schema = schema;
            this.rows = rows;
            this.keys = keys;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            if (!rows.loadNextBatch()) {
                return false;
            }
            VectorSchemaRoot in = rows.getVectorSchemaRoot();
            VectorSchemaRoot out = getVectorSchemaRoot();
            int n = in.getRowCount();
            FieldVector target = out.getVector(0);
            if (keys.keyFields().size() == 1) {
                target.clear();
                in.getVector(0).makeTransferPair(target).transfer();
            } else {
                FieldVector[] columns = keys.keyFields().stream()
                        .map(f -> in.getVector(f.getName()))
                        .toArray(FieldVector[]::new);
                VarBinaryVector encoded = (VarBinaryVector) target;
                encoded.reset();
                for (int row = 0; row < n; row++) {
                    keys.encode(columns, row, key);
                    encoded.setSafe(row, key.array(), 0, key.length());
                }
            }
            out.setRowCount(n);
            return true;
        }

        @Override
        public long bytesRead() {
            return rows.bytesRead();
        }

        @Override
        protected void closeReadSource() throws IOException {
            // the scan's reader is closed by its owner
        }

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }

    /** Creates {@code key}; an existing object with the same bytes (a retried write that landed) is fine. */
    private static void place(ObjectStore store, String key, byte[] data) {
        try {
            store.putIfAbsent(key, data);
        } catch (ObjectAlreadyExistsException | AmbiguousWriteException e) {
            if (!Arrays.equals(store.get(key), data)) {
                throw new FormatException(key, "holds other bytes than the key index being placed there", e);
            }
        }
    }

    private static String list(Path folder) {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).toList().toString();
        } catch (IOException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    private static void delete(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a scratch folder under the temporary directory
        }
    }
}
