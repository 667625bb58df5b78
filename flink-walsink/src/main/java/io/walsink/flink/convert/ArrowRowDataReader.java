package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads rows of Arrow batches with a given schema into {@link GenericRowData} of
 * {@link #rowType()} (the reverse mapping of {@link FlinkArrowTypes}), for the SQL source. Each
 * call returns a fresh row that owns its values, so it may be buffered or emitted downstream;
 * {@link #copyBatch} does the same for a whole batch at once.
 */
@Internal
public final class ArrowRowDataReader {
    private final Schema schema;
    private final RowType rowType;
    private final FieldReader[] readers;

    private ArrowRowDataReader(Schema schema, RowType rowType, FieldReader[] readers) {
        this.schema = schema;
        this.rowType = rowType;
        this.readers = readers;
    }

    public static ArrowRowDataReader create(Schema schema) {
        RowType rowType = FlinkArrowTypes.toRowType(schema);
        List<Field> fields = schema.getFields();
        FieldReader[] readers = new FieldReader[fields.size()];
        for (int c = 0; c < readers.length; c++) {
            readers[c] = FieldReaders.create(fields.get(c));
        }
        return new ArrowRowDataReader(schema, rowType, readers);
    }

    /** Row {@code index} of {@code source} (whose columns are this reader's schema, in order), as an INSERT. */
    public GenericRowData read(VectorSchemaRoot source, int index) {
        checkArity(source);
        GenericRowData row = new GenericRowData(readers.length);
        for (int c = 0; c < readers.length; c++) {
            FieldVector vector = source.getVector(c);
            row.setField(c, vector.isNull(index) ? null : readers[c].read(vector, index));
        }
        return row;
    }

    /**
     * Every row of {@code source} (whose columns are this reader's schema, in order) copied to the
     * heap as Flink columns: a {@link ColumnarRowData} over it owns its values as {@link #read}'s
     * rows do, whatever happens to {@code source} after, and costs a few bulk copies per batch
     * instead of an object per value.
     */
    public VectorizedColumnBatch copyBatch(VectorSchemaRoot source) {
        checkArity(source);
        int rows = source.getRowCount();
        ColumnVector[] columns = new ColumnVector[readers.length];
        for (int c = 0; c < readers.length; c++) {
            columns[c] = HeapColumns.copy(source.getVector(c), rowType.getTypeAt(c), readers[c], rows);
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(rows);
        return batch;
    }

    private void checkArity(VectorSchemaRoot source) {
        if (source.getFieldVectors().size() != readers.length) {
            throw new IllegalArgumentException(
                    "the source has " + source.getFieldVectors().size() + " columns, this reader's schema " + schema
                            + " has " + readers.length);
        }
    }

    public RowType rowType() {
        return rowType;
    }

    public Schema schema() {
        return schema;
    }
}
