package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.operation.Append;
import org.lance.operation.Delete;
import org.lance.operation.Operation;

/**
 * Builds a new table's maintained indexes on its empty base table, so that Lance's LSM readers
 * (LanceDB's default vector and full-text searches) search the table from its first published
 * SSTable on: they refuse a search unless the base table has an index of the searched kind on the
 * column under a name the MemWAL index lists as maintained.
 *
 * <p>Scalar and full-text indexes need no training, and lance-core builds them over no rows. A
 * vector index it refuses to build over no rows, and drops at any commit once the index covers no
 * existing fragment. So it is built over a placeholder fragment whose rows a deletion file then
 * deletes, the fragment kept (lance-core's own delete would drop a fragment whose rows all go): the
 * index entries point at deleted rows only, which readers skip. This starter is of the type every
 * SSTable gets ({@link IndexBuilds#generationType}), and its recorded training size is 0, so the
 * compactor builds it again over the merged rows from its first merge on, with the declared type
 * once the base table holds rows enough to train it.
 */
@Internal
public final class EmptyTableIndexes {
    private EmptyTableIndexes() {}

    /** The base table's config key holding how many base rows the vector index {@code index} was trained on. */
    public static String trainedRowsKey(String index) {
        return "walsink.index." + index + ".trained-rows";
    }

    /**
     * Builds every index of {@code maintained} on {@code base}, the empty table just created at
     * {@code uri}; returns their names and leaves {@code base} at its latest version.
     */
    public static List<String> build(
            BufferAllocator allocator,
            Dataset base,
            String uri,
            List<MaintainedIndex> maintained,
            Map<String, String> storageOptions,
            BiConsumer<String, byte[]> put) {
        List<MaintainedIndex> scalar =
                maintained.stream().filter(i -> !i.type().isVector()).toList();
        List<MaintainedIndex> vector =
                maintained.stream().filter(i -> i.type().isVector()).toList();
        IndexBuilds.buildOnGeneration(base, scalar);
        if (!vector.isEmpty()) {
            Objects.requireNonNull(put, "put");
            base.checkoutLatest();
            List<FragmentMetadata> placeholder = writePlaceholder(allocator, base, uri, vector, storageOptions);
            commit(base, Append.builder().fragments(placeholder).build());
            IndexBuilds.buildOnGeneration(base, vector);
            base.checkoutLatest();
            List<FragmentMetadata> emptied = new ArrayList<>();
            for (Fragment fragment : base.getFragments()) {
                emptied.add(deleteEveryRow(allocator, fragment.metadata(), base.version(), put));
            }
            commit(
                    base,
                    Delete.builder().updatedFragments(emptied).predicate("true").build());
            Map<String, String> trained = new HashMap<>();
            vector.forEach(i -> trained.put(trainedRowsKey(i.name()), "0"));
            base.updateConfig(trained);
        }
        base.checkoutLatest();
        List<String> names = new ArrayList<>();
        maintained.forEach(i -> names.add(i.name()));
        return names;
    }

    /**
     * {@code fragment} with a deletion file (Lance's Arrow form: one non-null UInt32 column {@code
     * row_id} of the deleted offsets, at {@code _deletions/<fragment>-<read version>-<id>.arrow})
     * covering every row: the fragment stays, with no row left.
     */
    static FragmentMetadata deleteEveryRow(
            BufferAllocator allocator, FragmentMetadata fragment, long readVersion, BiConsumer<String, byte[]> put) {
        int rows = (int) fragment.getPhysicalRows();
        long id = new SecureRandom().nextLong() & Long.MAX_VALUE;
        Field rowId = new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, false)), null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(rowId)), allocator);
                ArrowFileWriter writer = new ArrowFileWriter(root, null, Channels.newChannel(out))) {
            UInt4Vector offsets = (UInt4Vector) root.getVector(0);
            offsets.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                offsets.set(i, i);
            }
            root.setRowCount(rows);
            writer.start();
            writer.writeBatch();
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        put.accept(
                "_deletions/" + fragment.getId() + "-" + readVersion + "-" + Long.toUnsignedString(id) + ".arrow",
                out.toByteArray());
        return new FragmentMetadata(
                fragment.getId(),
                fragment.getFiles(),
                fragment.getPhysicalRows(),
                new DeletionFile(id, readVersion, (long) rows, DeletionFileType.ARRAY, null),
                fragment.getRowIdMeta());
    }

    private static void commit(Dataset base, Operation operation) {
        try (var transaction = base.newTransactionBuilder().operation(operation).build()) {
            transaction.commit().close();
        }
        base.checkoutLatest();
    }

    /**
     * One fragment of {@code 2 × dimension} rows: every vector column of {@code vector} holds the
     * unit vectors along each axis and their negatives (bounds and a centroid to train on, for
     * any metric), every other column a default value (zero, empty), none null.
     */
    private static List<FragmentMetadata> writePlaceholder(
            BufferAllocator allocator,
            Dataset base,
            String uri,
            List<MaintainedIndex> vector,
            Map<String, String> storageOptions) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(base.getSchema(), allocator)) {
            int rows = 0;
            for (MaintainedIndex index : vector) {
                if (!(root.getVector(index.column()) instanceof FixedSizeListVector list)) {
                    throw new IllegalArgumentException("vector index " + index.name() + " needs '" + index.column()
                            + "' to be a fixed-size list of floats");
                }
                rows = Math.max(rows, 2 * list.getListSize());
            }
            for (FieldVector column : root.getFieldVectors()) {
                fill(column, rows);
            }
            for (MaintainedIndex index : vector) {
                FixedSizeListVector list = (FixedSizeListVector) root.getVector(index.column());
                int dimension = list.getListSize();
                for (int row = 0; row < rows; row++) {
                    int axis = row % dimension;
                    float sign = (row / dimension) % 2 == 0 ? 1f : -1f;
                    for (int d = 0; d < dimension; d++) {
                        set(list.getDataVector(), row * dimension + d, d == axis ? sign : 0f, index);
                    }
                }
            }
            root.setRowCount(rows);
            WriteParams params =
                    new WriteParams.Builder().withStorageOptions(storageOptions).build();
            return Fragment.create(uri, allocator, root, params);
        }
    }

    private static void set(FieldVector values, int at, float value, MaintainedIndex index) {
        if (values instanceof Float4Vector f) {
            f.set(at, value);
        } else if (values instanceof Float8Vector f) {
            f.set(at, value);
        } else if (values instanceof Float2Vector f) {
            f.setWithPossibleTruncate(at, value);
        } else {
            throw new IllegalArgumentException(
                    "vector index " + index.name() + " needs '" + index.column() + "' to hold floats");
        }
    }

    /** {@code rows} valid default values (buffers zeroed: 0, empty strings and lists), children likewise. */
    private static void fill(FieldVector column, int rows) {
        column.setInitialCapacity(rows);
        column.allocateNew();
        if (column instanceof FixedSizeListVector list) {
            fill(list.getDataVector(), rows * list.getListSize());
        } else {
            for (FieldVector child : column.getChildrenFromFields()) {
                fill(child, childRows(column, rows));
            }
        }
        if (!(column instanceof NullVector)) {
            ArrowBuf validity = column.getValidityBuffer();
            for (int i = 0; i < rows; i++) {
                BitVectorHelper.setBit(validity, i);
            }
        }
        column.setValueCount(rows);
    }

    /** Rows of a child: as many as its parent's for a struct, none for a (variable) list or map. */
    private static int childRows(FieldVector column, int rows) {
        return column instanceof StructVector ? rows : 0;
    }
}
