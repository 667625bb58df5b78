package io.walsink.format;

import io.walsink.annotation.Internal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A batch written before columns were added to the table (ALTER TABLE ADD COLUMN), seen under the
 * table's columns now: the added ones read as null, as Lance's MemWAL reads them. WAL entries and
 * SSTables are immutable and keep the columns they were written with, so every reader of them
 * goes through here. Columns are matched by name (walsink refuses renames and type changes, so a
 * name names one column for the table's whole life); a missing column must be nullable, since only
 * added columns can be missing.
 *
 * <p>Close the view after use: it frees the null columns, never the batch's own.
 */
@Internal
public final class ColumnsAddedLater implements AutoCloseable {
    private final VectorSchemaRoot view;
    private final List<FieldVector> nulls;

    private ColumnsAddedLater(VectorSchemaRoot view, List<FieldVector> nulls) {
        this.view = view;
        this.nulls = nulls;
    }

    /**
     * {@code batch} with every column of {@code table} in table order, followed by the batch's
     * columns the table does not have (such as {@code _tombstone}); the batch itself when it already
     * holds every column.
     *
     * @throws FormatException naming {@code source} and the column, if a missing column is not
     *     nullable (it was not added later: the batch does not belong to the table)
     */
    public static ColumnsAddedLater view(VectorSchemaRoot batch, List<Field> table, String source) {
        List<Field> missing = missing(table, batch.getSchema(), source);
        if (missing.isEmpty()) {
            return new ColumnsAddedLater(batch, List.of());
        }
        BufferAllocator allocator = batch.getFieldVectors().get(0).getAllocator();
        int rows = batch.getRowCount();
        List<FieldVector> nulls = new ArrayList<>();
        List<FieldVector> vectors = new ArrayList<>();
        Set<String> tableNames = new HashSet<>();
        try {
            for (Field f : table) {
                tableNames.add(f.getName());
                FieldVector present = batch.getVector(f.getName());
                if (present != null) {
                    vectors.add(present);
                    continue;
                }
                FieldVector empty = f.createVector(allocator);
                nulls.add(empty);
                empty.allocateNew();
                empty.setValueCount(rows); // a fresh validity buffer is all zeros: every row null
                vectors.add(empty);
            }
        } catch (RuntimeException e) {
            nulls.forEach(FieldVector::close);
            throw e;
        }
        for (FieldVector v : batch.getFieldVectors()) {
            if (!tableNames.contains(v.getName())) {
                vectors.add(v);
            }
        }
        List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
        return new ColumnsAddedLater(new VectorSchemaRoot(fields, vectors, rows), nulls);
    }

    /**
     * {@code batch}, which holds every column of {@code target} but those {@link #missing}
     * reports, as a batch of exactly {@code target}'s schema that owns the batch's vectors and the
     * null columns: closing it frees both. The batch itself is left without vectors to close.
     */
    public static VectorSchemaRoot adopt(VectorSchemaRoot batch, Schema target, String source) {
        ColumnsAddedLater view = view(batch, target.getFields(), source);
        List<FieldVector> vectors = view.root().getFieldVectors();
        if (vectors.size() != target.getFields().size()) {
            view.close();
            throw new FormatException(
                    source, "has columns the schema " + target + " does not: " + batch.getSchema(), null);
        }
        return new VectorSchemaRoot(target.getFields(), vectors, batch.getRowCount());
    }

    /**
     * The columns of {@code table} that {@code written} lacks.
     *
     * @throws FormatException if one of them is not nullable
     */
    public static List<Field> missing(List<Field> table, Schema written, String source) {
        Set<String> names = new HashSet<>();
        written.getFields().forEach(f -> names.add(f.getName()));
        List<Field> missing = new ArrayList<>();
        for (Field f : table) {
            if (names.contains(f.getName())) {
                continue;
            }
            if (!f.isNullable()) {
                throw new FormatException(
                        source,
                        "has no column '" + f.getName() + "', which the table declares NOT NULL (only nullable"
                                + " columns can have been added after it was written); it has " + names,
                        null);
            }
            missing.add(f);
        }
        return missing;
    }

    public VectorSchemaRoot root() {
        return view;
    }

    @Override
    public void close() {
        nulls.forEach(FieldVector::close);
    }
}
