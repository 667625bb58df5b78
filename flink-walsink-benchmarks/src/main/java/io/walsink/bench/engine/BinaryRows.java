package io.walsink.bench.engine;

import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.shard.memtable.RowWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The engine's batches as the Flink operator receives rows from its {@code keyBy}: binary rows,
 * each record's bytes of its own, written into the memtable by the operator's own
 * {@link RowDataArrowWriter}. Built before any timing; the bytes of a batch's rows sit end to end
 * in one segment, which a reused {@link BinaryRowData} points at row by row.
 */
final class BinaryRows {
    /** {@link EngineBatches#SCHEMA} as Flink types. */
    static final RowType TYPE = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, new DoubleType()},
            new String[] {"id", "name", "score"});

    private final List<MemorySegment[]> segments = new ArrayList<>(); // per batch, one segment
    private final List<int[]> offsets = new ArrayList<>(); // per batch: row starts, then the end
    private final RowDataArrowWriter writer;
    private final BinaryRowData row = new BinaryRowData(3);
    private final RowWriter into;

    private BinaryRows(Schema schema) {
        this.writer = RowDataArrowWriter.create(TYPE, schema);
        this.into = (columns, at) -> writer.writeInPlace(row, columns, at);
    }

    /** The rows of {@code batches} (in {@link EngineBatches#SCHEMA}) as binary rows. */
    static BinaryRows of(List<VectorSchemaRoot> batches) {
        BinaryRows rows = new BinaryRows(EngineBatches.SCHEMA);
        BinaryRowData one = new BinaryRowData(3);
        BinaryRowWriter out = new BinaryRowWriter(one);
        for (VectorSchemaRoot batch : batches) {
            BigIntVector id = (BigIntVector) batch.getVector(0);
            VarCharVector name = (VarCharVector) batch.getVector(1);
            Float8Vector score = (Float8Vector) batch.getVector(2);
            int n = batch.getRowCount();
            List<byte[]> encoded = new ArrayList<>(n);
            int[] starts = new int[n + 1];
            for (int r = 0; r < n; r++) {
                out.reset();
                out.writeLong(0, id.get(r));
                if (name.isNull(r)) {
                    out.setNullAt(1);
                } else {
                    out.writeString(1, StringData.fromBytes(name.get(r)));
                }
                if (score.isNull(r)) {
                    out.setNullAt(2);
                } else {
                    out.writeDouble(2, score.get(r));
                }
                out.complete();
                byte[] bytes = new byte[one.getSizeInBytes()];
                one.getSegments()[0].get(one.getOffset(), bytes, 0, bytes.length);
                encoded.add(bytes);
                starts[r + 1] = starts[r] + bytes.length;
            }
            byte[] all = new byte[starts[n]];
            for (int r = 0; r < n; r++) {
                System.arraycopy(encoded.get(r), 0, all, starts[r], encoded.get(r).length);
            }
            rows.segments.add(new MemorySegment[] {MemorySegmentFactory.wrap(all)});
            rows.offsets.add(starts);
        }
        return rows;
    }

    int batches() {
        return segments.size();
    }

    int rows(int batch) {
        return offsets.get(batch).length - 1;
    }

    /**
     * The operator's row writer for row {@code r} of batch {@code batch}; reused, valid until the
     * next call. Pointing the row at its bytes allocates nothing: supplying rows is not the sink's
     * work, so it should not weigh on the row path's figure.
     */
    RowWriter at(int batch, int r) {
        int[] starts = offsets.get(batch);
        row.pointTo(segments.get(batch), starts[r], starts[r + 1] - starts[r]);
        return into;
    }
}
