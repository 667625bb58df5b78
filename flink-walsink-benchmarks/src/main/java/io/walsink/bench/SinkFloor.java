package io.walsink.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * The least work per input row that any sink must do to leave the q1 stream in a Lance table
 * through a MemWAL layout, measured in this JVM with the plainest code for each step, none of
 * walsink's own:
 *
 * <ol>
 *   <li><b>copy</b>: every row's values taken out of Flink's {@code RowData} into Arrow vectors
 *       (rows arrive one at a time; the WAL and the SSTables are Arrow), 8,192-row batches in one
 *       reused set of vectors;
 *   <li><b>WAL bytes</b>: those batches written once as an Arrow IPC stream to a local file,
 *       without fsync (the MemWAL spec's WAL entries are Arrow IPC);
 *   <li><b>Lance write</b>: lance-core writing the table's final rows once (every key's newest
 *       row, one dataset, as the last SSTables or a merge must at least write them), counted over
 *       the input rows; process CPU, so lance-core's native threads count.
 * </ol>
 *
 * <p>Leaving out the primary-key index, deduplication, fsync, manifests and compaction keeps it a
 * lower bound. The job is CPU-bound on the machine's cores, so a sink reaches a goal g of a
 * reference only if its extra CPU per row stays under reference CPU per row x (1/g - 1): when
 * this floor exceeds that budget, no sink writing this table reaches the goal here.
 */
final class SinkFloor {
    private static final int BATCH = 8192;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU nanoseconds per input row of each step: medians over the repetitions. */
    record PerRow(double copy, double walBytes, double lanceWrite, long inputRows, long tableRows) {
        double total() {
            return copy + walBytes + lanceWrite;
        }
    }

    private SinkFloor() {}

    static PerRow measure(Q1Rows rows, int repetitions, Path scratch) throws IOException {
        List<Double> copies = new ArrayList<>();
        List<Double> wals = new ArrayList<>();
        List<Double> lances = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int r = 0; r < repetitions; r++) {
                double[] copyAndWal = copyAndWal(rows, allocator, scratch.resolve("wal-" + r));
                copies.add(copyAndWal[0] / rows.rows);
                wals.add(copyAndWal[1] / rows.rows);
                lances.add(lanceWrite(rows, allocator, scratch.resolve("table-" + r)) / rows.rows);
            }
        }
        return new PerRow(
                Spread.of(copies).median(),
                Spread.of(wals).median(),
                Spread.of(lances).median(),
                rows.rows,
                rows.keys);
    }

    static Schema schema() {
        List<Field> fields = new ArrayList<>();
        fields.add(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null));
        fields.add(new Field("name", FieldType.nullable(new ArrowType.Utf8()), null));
        for (int j = 1; j <= Q1Rows.VALUES; j++) {
            fields.add(new Field("v" + j, FieldType.nullable(new ArrowType.Int(64, true)), null));
        }
        return new Schema(fields);
    }

    /** Thread CPU ns of copying every input row into Arrow, and of writing the batches as IPC. */
    private static double[] copyAndWal(Q1Rows rows, BufferAllocator allocator, Path file) throws IOException {
        long copy = 0;
        long wal = 0;
        RowData[] batch = new RowData[BATCH];
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ArrowStreamWriter writer = new ArrowStreamWriter(root, null, channel)) {
            writer.start();
            for (long start = 0; start < rows.rows; start += BATCH) {
                int n = (int) Math.min(BATCH, rows.rows - start);
                for (int k = 0; k < n; k++) {
                    batch[k] = rows.row(start + k); // the source's work, not timed
                }
                long t0 = THREADS.getCurrentThreadCpuTime();
                fill(root, batch, n);
                long t1 = THREADS.getCurrentThreadCpuTime();
                writer.writeBatch();
                long t2 = THREADS.getCurrentThreadCpuTime();
                copy += t1 - t0;
                wal += t2 - t1;
            }
            writer.end();
        } finally {
            Files.deleteIfExists(file);
        }
        return new double[] {copy, wal};
    }

    private static void fill(VectorSchemaRoot root, RowData[] batch, int n) {
        root.clear();
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int k = 0; k < n; k++) {
            RowData row = batch[k];
            id.setSafe(k, row.getLong(0));
            name.setSafe(k, row.getString(1).toBytes());
            for (int j = 1; j <= Q1Rows.VALUES; j++) {
                ((BigIntVector) root.getVector(1 + j)).setSafe(k, row.getLong(1 + j));
            }
        }
        root.setRowCount(n);
    }

    /** Process CPU ns of lance-core writing every key's final row once into a new dataset. */
    private static double lanceWrite(Q1Rows rows, BufferAllocator allocator, Path table) {
        long[] last = rows.lastChangePerKey();
        List<VectorSchemaRoot> batches = new ArrayList<>();
        try {
            RowData[] batch = new RowData[BATCH];
            int n = 0;
            for (long change : last) {
                if (change < 0) {
                    continue;
                }
                batch[n++] = rows.row(change);
                if (n == BATCH) {
                    batches.add(batchOf(allocator, batch, n));
                    n = 0;
                }
            }
            if (n > 0) {
                batches.add(batchOf(allocator, batch, n));
            }
            long cpu = ProcessCpu.nanos();
            try (Dataset written = Dataset.write()
                    .allocator(allocator)
                    .reader(new Prebuilt(allocator, batches))
                    .uri(table.toString())
                    .mode(WriteParams.WriteMode.CREATE)
                    .maxRowsPerFile(Integer.MAX_VALUE)
                    .execute()) {
                long spent = ProcessCpu.nanos() - cpu;
                if (written.countRows() != rows.keys) {
                    throw new IllegalStateException(
                            "lance-core wrote " + written.countRows() + " rows, expected " + rows.keys);
                }
                return spent;
            }
        } finally {
            batches.forEach(VectorSchemaRoot::close);
            LocalShardTable.deleteRecursively(table);
        }
    }

    private static VectorSchemaRoot batchOf(BufferAllocator allocator, RowData[] rows, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        fill(root, rows, n);
        return root;
    }

    /** Hands lance-core prebuilt batches without copying their buffers. */
    private static final class Prebuilt extends ArrowReader {
        private final List<VectorSchemaRoot> batches;
        private int next;

        Prebuilt(BufferAllocator allocator, List<VectorSchemaRoot> batches) {
            super(allocator);
            this.batches = batches;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            if (next == batches.size()) {
                return false;
            }
            try (ArrowRecordBatch b = new VectorUnloader(batches.get(next++)).getRecordBatch()) {
                new VectorLoader(getVectorSchemaRoot()).load(b);
            }
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
            return schema();
        }
    }
}
