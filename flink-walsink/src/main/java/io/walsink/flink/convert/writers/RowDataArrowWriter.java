package io.walsink.flink.convert.writers;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.ColumnValueException;
import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.flink.convert.SchemaMismatchException;
import io.walsink.flink.convert.UnsupportedColumnTypeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Writes Flink {@link RowData} into Arrow vectors laid out as the table schema.
 *
 * <p>Built once per operator (not serializable: build it in {@code open}). Columns are matched
 * by name, so the Flink row may list them in another order; every table column must be in the
 * row and every row field in the table. Types are checked per column when built
 * ({@link SchemaMismatchException}, {@link UnsupportedColumnTypeException}); values that do not
 * fit fail per row with {@link ColumnValueException} naming the column and the row index.
 *
 * <p>Rows must be written at increasing indexes (list columns append to their child vectors);
 * the caller sets the root's row count when the batch is complete.
 */
@Internal
public final class RowDataArrowWriter {
    private final RowType rowType;
    private final Schema schema;
    private final FieldWriter[] writers;
    private final int[] rowPositions; // for each table column, its position in the Flink row
    private VectorSchemaRoot checkedTarget;
    private FieldVector[] targetColumns;

    /** The row position of a table column the rows do not have. */
    private static final int ABSENT = -1;

    private static final RowData NULL_ROW = GenericRowData.of((Object) null);

    /** Bits before the first field's null bit in a {@link BinaryRowData} (its row kind). */
    private static final int HEADER_BITS = 8;

    /** Whether every field's null bit is in a binary row's first 8 bytes. */
    private final boolean nullBitsInOneWord;

    private RowDataArrowWriter(RowType rowType, Schema schema, FieldWriter[] writers, int[] rowPositions) {
        this.rowType = rowType;
        this.schema = schema;
        this.writers = writers;
        this.rowPositions = rowPositions;
        this.nullBitsInOneWord = rowType.getFieldCount() + HEADER_BITS <= Long.SIZE;
    }

    public static RowDataArrowWriter create(RowType rowType, Schema tableSchema) {
        Map<String, Integer> positions = new HashMap<>();
        List<String> names = rowType.getFieldNames();
        for (int i = 0; i < names.size(); i++) {
            positions.put(names.get(i), i);
        }
        List<Field> columns = tableSchema.getFields();
        FieldWriter[] writers = new FieldWriter[columns.size()];
        int[] rowPositions = new int[columns.size()];
        List<String> tableNames = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            Field column = columns.get(c);
            tableNames.add(column.getName());
            Integer position = positions.remove(column.getName());
            if (position == null && !column.isNullable()) {
                throw new SchemaMismatchException(
                        column.getName(), "is in the table but missing from the Flink row type " + names);
            }
            if (position == null) {
                // A nullable column the rows do not have (added to the table after they were
                // declared, as by ALTER TABLE ADD COLUMN): written as null.
                rowPositions[c] = ABSENT;
                writers[c] = FieldWriterFactory.create(column.getName(), FlinkArrowTypes.toLogicalType(column), column);
                continue;
            }
            rowPositions[c] = position;
            writers[c] = FieldWriterFactory.create(column.getName(), rowType.getTypeAt(position), column);
        }
        if (!positions.isEmpty()) {
            // The rows name a column the table lacks: one they miss is more likely renamed than added.
            for (int c = 0; c < columns.size(); c++) {
                if (rowPositions[c] == ABSENT) {
                    throw new SchemaMismatchException(
                            columns.get(c).getName(), "is in the table but missing from the Flink row type " + names);
                }
            }
            String extra =
                    names.stream().filter(positions::containsKey).findFirst().orElseThrow();
            throw new SchemaMismatchException(
                    extra, "is in the Flink row type but not in the table, whose columns are " + tableNames);
        }
        return new RowDataArrowWriter(rowType, tableSchema, writers, rowPositions);
    }

    /** Writes {@code row}'s values at {@code index} of {@code target}, which has the table schema. */
    public void write(RowData row, VectorSchemaRoot target, int index) {
        if (target != checkedTarget) {
            checkTarget(target);
        }
        write(row, targetColumns, index);
    }

    /**
     * Writes {@code row}'s values at {@code index} of {@code columns}: vectors of the table's
     * columns in table order (more may follow; they are left alone). The caller vouches for
     * their types, e.g. by checking {@link #schema()} once against the vectors' schema.
     */
    public void write(RowData row, FieldVector[] columns, int index) {
        write(row, columns, index, false);
    }

    /**
     * As {@link #write(RowData, FieldVector[], int)} into vectors that already have room for row
     * {@code index} as {@code RowWriter} describes it (a memtable's open batch guarantees it):
     * values are stored without Arrow's per-value capacity, bounds and reference-count checks
     * ({@link InPlaceStores}). Room that is not there corrupts memory; use {@code write} when in
     * doubt.
     */
    public void writeInPlace(RowData row, FieldVector[] columns, int index) {
        write(row, columns, index, true);
    }

    private void write(RowData row, FieldVector[] columns, int index, boolean inPlace) {
        // A shuffled row is binary, in one segment: its null bits are read as one word, where
        // isNullAt read and checked a byte per field. Bit i is bit (i & 7) of byte (i >>> 3).
        boolean bitsRead = inPlace
                && row instanceof BinaryRowData binary
                && binary.getSegments().length == 1
                && nullBitsInOneWord
                && binary.getArity() == rowType.getFieldCount();
        long nullBits = bitsRead
                ? ((BinaryRowData) row).getSegments()[0].getLongLittleEndian(((BinaryRowData) row).getOffset())
                : 0;
        try {
            FieldWriter[] w = writers;
            int[] positions = rowPositions;
            for (int column = 0; column < w.length; column++) {
                int position = positions[column];
                if (position == ABSENT) {
                    w[column].writeField(columns[column], index, NULL_ROW, 0);
                } else if (bitsRead) {
                    boolean isNull = (nullBits & (1L << (position + HEADER_BITS))) != 0;
                    w[column].writeFieldInPlace(columns[column], index, row, position, isNull);
                } else if (inPlace) {
                    w[column].writeFieldInPlace(columns[column], index, row, position);
                } else {
                    w[column].writeField(columns[column], index, row, position);
                }
            }
        } catch (ColumnValueException e) {
            throw new ColumnValueException(e.column(), "row " + index + ": " + e.problem(), e.getCause());
        }
    }

    private void checkTarget(VectorSchemaRoot target) {
        if (!target.getSchema().getFields().equals(schema.getFields())) {
            throw new IllegalArgumentException("the target's schema " + target.getSchema()
                    + " is not the table schema this writer was built for: " + schema);
        }
        checkedTarget = target;
        targetColumns = target.getFieldVectors().toArray(new FieldVector[0]);
    }

    public RowType rowType() {
        return rowType;
    }

    public Schema schema() {
        return schema;
    }
}
