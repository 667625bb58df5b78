package io.walsink.format.pkindex;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.file.LanceFileWriter;

/**
 * The primary-key index of a flushed generation: a BTree from each key to its row offset, two files
 * ({@code page_lookup.lance}, {@code page_data.lance}) in {@code _pk_index/} of the generation folder.
 *
 * <p>Lance's MemWAL readers (Lance 10 inside LanceDB) open it for every flushed generation of a
 * scan and fail without it. It is not registered in any manifest: a reader finds it by its place.
 * A one-column key is indexed by its value; a composite key by its order-preserving encoding (format.md
 * section 6, the encoding Lance's readers probe with) in one binary column.
 *
 * <p>The writer hands over each row's key in row order ({@link #add}) while it writes the
 * generation; the keys are sorted here and both files written with lance-core's file writer, in the
 * layout lance-core's own BTree ({@code createIndex(BTREE)}) writes, which a test compares file by
 * file. Building the index through {@code createIndex} cost a scratch dataset, a scan and an index
 * commit per SSTable, about three times the files themselves. The files go straight into the
 * generation folder through lance-core, with the options it wrote the generation with, as the
 * generation's own data files do: a scratch copy placed through walsink's store cost two more
 * writes and, locally, four fsyncs per SSTable. The folder is new and randomly named for each
 * attempt, so nothing can be overwritten. Written before the generation is published, so a
 * published generation always has it.
 *
 * <p>Not thread-safe: one per SSTable write.
 */
@Internal
public final class GenerationPkIndex implements AutoCloseable {
    /** The folder, relative to the generation folder. */
    public static final String FOLDER = "_pk_index/";

    static final String LOOKUP_FILE = "page_lookup.lance";
    static final String DATA_FILE = "page_data.lance";
    static final List<String> FILES = List.of(LOOKUP_FILE, DATA_FILE);
    /** Rows per page of {@code page_data}, and the lookup's {@code batch_size}: lance-core's default. */
    static final int PAGE_ROWS = 4096;
    /** The Lance file version lance-core 7.0.0 writes scalar-index files in. */
    static final String FILE_VERSION = "2.1";

    private static final String VALUES = "values";
    private static final String IDS = "ids";

    private final PrimaryKeyEncoder keys;
    private final BufferAllocator allocator;
    private final Field valuesField;
    private final boolean composite;
    private final KeyBuffer key = new KeyBuffer();
    /**
     * One-column keys without 64-bit bits: the values in row order (composite keys are their
     * encodings in {@link #arena}, 64-bit ones their {@link #bits}).
     */
    private final FieldVector unsorted;
    /** One-column 64-bit keys: the encoding's value bits in row order, ordered as unsigned. */
    private long[] bits;
    /** Other keys: the encodings in row order, end to end; ordered as unsigned bytes. */
    private byte[] arena;

    private int[] ends;
    private int rows;

    /** An empty index for the keys {@code keys} reads; {@code allocator} holds the values until closed. */
    public GenerationPkIndex(PrimaryKeyEncoder keys, BufferAllocator allocator) {
        this.keys = keys;
        this.allocator = allocator;
        List<Field> keyFields = keys.keyFields();
        this.composite = keyFields.size() > 1;
        // lance-core's BTree declares its values nullable and without field metadata, whatever the column's
        ArrowType type =
                composite ? ArrowType.Binary.INSTANCE : keyFields.get(0).getType();
        this.valuesField = new Field(VALUES, FieldType.nullable(type), null);
        // 64-bit keys are written from their sorted bits; other one-column keys are copied from here
        this.unsorted = composite || keys.isSingleLong() ? null : valuesField.createVector(allocator);
        if (keys.isSingleLong()) {
            bits = new long[1024];
        } else {
            arena = new byte[16 * 1024];
            ends = new int[1024];
        }
    }

    /**
     * Adds the keys of rows {@code [from, to)} of {@code keyColumns} (the key vectors, in key order)
     * as the generation's next rows: the first key added is row offset 0.
     */
    public void add(FieldVector[] keyColumns, int from, int to) {
        if (unsorted != null) {
            appendValues(keyColumns[0], from, to);
        }
        for (int row = from; row < to; row++) {
            if (bits != null) {
                if (rows == bits.length) {
                    bits = Arrays.copyOf(bits, rows * 2);
                }
                bits[rows] = keys.singleLongBits(keyColumns[0], row);
            } else {
                keys.encode(keyColumns, row, key);
                int start = rows == 0 ? 0 : ends[rows - 1];
                if (start + key.length() > arena.length) {
                    arena = Arrays.copyOf(arena, Math.max(arena.length * 2, start + key.length()));
                }
                if (rows == ends.length) {
                    ends = Arrays.copyOf(ends, rows * 2);
                }
                System.arraycopy(key.array(), 0, arena, start, key.length());
                ends[rows] = start + key.length();
            }
            rows++;
        }
    }

    /**
     * Appends rows {@code [from, to)} of {@code column} after the {@link #rows} values held: one
     * memory copy for a fixed-width column (keys are never null), Arrow's row copy otherwise.
     */
    private void appendValues(FieldVector column, int from, int to) {
        if (unsorted instanceof BaseFixedWidthVector held
                && column instanceof BaseFixedWidthVector source
                && !(held instanceof BitVector)) {
            while (held.getValueCapacity() < rows + (to - from)) {
                held.reAlloc();
            }
            long width = held.getTypeWidth();
            held.getDataBuffer().setBytes(rows * width, source.getDataBuffer(), from * width, (to - from) * width);
            for (int i = rows; i < rows + (to - from); i++) {
                BitVectorHelper.setBit(held.getValidityBuffer(), i);
            }
            return;
        }
        for (int row = from, at = rows; row < to; row++, at++) {
            unsorted.copyFromSafe(row, at, column);
        }
    }

    /** Keys added so far. */
    public int rows() {
        return rows;
    }

    /**
     * Writes both files, keys sorted, into {@code _pk_index/} of the generation folder, through
     * lance-core as it writes the generation itself.
     *
     * @param generationUri the generation folder's URI, as lance-core wrote the generation
     * @param storageOptions lance-core object-store options (empty for local paths)
     * @return the number of pages
     */
    public int write(String generationUri, Map<String, String> storageOptions) {
        if (rows == 0) {
            throw new IllegalStateException("no keys: a generation holds at least one row");
        }
        String folder = (generationUri.endsWith("/") ? generationUri : generationUri + "/") + FOLDER;
        try {
            return writeFiles(folder, storageOptions);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // lance-core's file writer
            throw new FormatException(folder, "writing the key index failed: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code page_data.lance} and {@code page_lookup.lance} into {@code folder} (a URI or
     * path ending in {@code /}); the number of pages.
     */
    int writeFiles(String folder, Map<String, String> storageOptions) throws Exception {
        // rows in the order Lance sorts the values column in: the key encoding's unsigned order is the same
        long[] sortedBits = bits == null ? null : new long[rows];
        int[] order = bits != null ? UnsignedLongOrder.of(bits, rows, sortedBits) : KeyBytesOrder.of(arena, ends, rows);
        int pages = (rows + PAGE_ROWS - 1) / PAGE_ROWS;
        Schema dataSchema = new Schema(List.of(valuesField, Field.notNullable(IDS, new ArrowType.Int(64, false))));
        Schema lookupSchema = new Schema(List.of(
                new Field("min", valuesField.getFieldType(), null),
                new Field("max", valuesField.getFieldType(), null),
                Field.notNullable("null_count", new ArrowType.Int(32, false)),
                Field.notNullable("page_idx", new ArrowType.Int(32, false))));
        try (VectorSchemaRoot page = VectorSchemaRoot.create(dataSchema, allocator);
                VectorSchemaRoot lookup = VectorSchemaRoot.create(lookupSchema, allocator)) {
            FieldVector values = page.getVector(0);
            UInt8Vector ids = (UInt8Vector) page.getVector(1);
            FieldVector min = lookup.getVector(0);
            FieldVector max = lookup.getVector(1);
            UInt4Vector nullCount = (UInt4Vector) lookup.getVector(2);
            UInt4Vector pageIdx = (UInt4Vector) lookup.getVector(3);
            try (LanceFileWriter data = open(folder + DATA_FILE, storageOptions)) {
                for (int p = 0; p < pages; p++) {
                    int first = p * PAGE_ROWS;
                    int n = Math.min(PAGE_ROWS, rows - first);
                    page.allocateNew();
                    if (sortedBits != null) {
                        sortedBitsPage((BaseFixedWidthVector) values, ids, order, sortedBits, first, n);
                    } else if (values instanceof BaseFixedWidthVector fixed && !(values instanceof BitVector)) {
                        fixedWidthPage(fixed, ids, order, first, n);
                    } else {
                        for (int i = 0; i < n; i++) {
                            int row = order[first + i];
                            if (composite) {
                                int start = row == 0 ? 0 : ends[row - 1];
                                ((VarBinaryVector) values).setSafe(i, arena, start, ends[row] - start);
                            } else {
                                values.copyFromSafe(row, i, unsorted);
                            }
                            ids.setSafe(i, row);
                        }
                    }
                    page.setRowCount(n);
                    data.write(page);
                    min.copyFromSafe(0, p, values);
                    max.copyFromSafe(n - 1, p, values);
                    nullCount.setSafe(p, 0); // keys are never null
                    pageIdx.setSafe(p, p);
                }
            }
            lookup.setRowCount(pages);
            try (LanceFileWriter pageLookup = open(folder + LOOKUP_FILE, storageOptions)) {
                pageLookup.write(lookup);
                pageLookup.addSchemaMetadata(
                        Map.of("batch_size", Integer.toString(PAGE_ROWS), "range_partitioned", "false"));
            }
        }
        return pages;
    }

    /**
     * Fills a page of a fixed-width key (one column, never null) with the values of rows
     * {@code order[first, first + n)}: a load and a store per value, where Arrow's row copy
     * checked capacity and types per value (most of the index's cost).
     */
    private void fixedWidthPage(BaseFixedWidthVector page, UInt8Vector ids, int[] order, int first, int n) {
        page.allocateNew(n);
        ids.allocateNew(n);
        ArrowBuf from = ((BaseFixedWidthVector) unsorted).getDataBuffer();
        ArrowBuf to = page.getDataBuffer();
        int width = page.getTypeWidth();
        for (int i = 0; i < n; i++) {
            int row = order[first + i];
            switch (width) {
                case 8 -> to.setLong((long) i * 8, from.getLong((long) row * 8));
                case 4 -> to.setInt((long) i * 4, from.getInt((long) row * 4));
                default -> to.setBytes((long) i * width, from, (long) row * width, width);
            }
            BitVectorHelper.setBit(page.getValidityBuffer(), i);
            ids.set(i, row);
        }
    }

    /**
     * Fills a page of a 64-bit key with the values of rows {@code order[first, first + n)}, read
     * in sequence from their sorted bits: gathering them from the rows was a cache miss a key.
     */
    private void sortedBitsPage(
            BaseFixedWidthVector page, UInt8Vector ids, int[] order, long[] sortedBits, int first, int n) {
        page.allocateNew(n);
        ids.allocateNew(n);
        long values = page.getDataBufferAddress();
        long rowIds = ids.getDataBufferAddress();
        int width = page.getTypeWidth();
        for (int i = 0; i < n; i++) {
            long value = keys.singleLongValue(sortedBits[first + i]);
            long at = values + (long) i * width;
            switch (width) {
                case 8 -> MemoryUtil.putLong(at, value);
                case 4 -> MemoryUtil.putInt(at, (int) value);
                case 2 -> MemoryUtil.putShort(at, (short) value);
                default -> MemoryUtil.putByte(at, (byte) value);
            }
            MemoryUtil.putLong(rowIds + (long) i * 8, order[first + i]);
        }
        allValid(page, n);
        allValid(ids, n);
    }

    /** Sets the validity bits of rows {@code [0, n)}, a byte at a time. */
    private static void allValid(BaseFixedWidthVector v, int n) {
        ArrowBuf validity = v.getValidityBuffer();
        validity.setOne(0, n >>> 3);
        for (int i = n & ~7; i < n; i++) {
            BitVectorHelper.setBit(validity, i);
        }
    }

    private LanceFileWriter open(String file, Map<String, String> storageOptions) throws IOException {
        return LanceFileWriter.open(file, allocator, null, Optional.of(FILE_VERSION), storageOptions);
    }

    @Override
    public void close() {
        if (unsorted != null) {
            unsorted.close();
        }
    }
}
