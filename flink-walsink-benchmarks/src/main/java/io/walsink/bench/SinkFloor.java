package io.walsink.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
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
 *       set of vectors. The rows are binary rows, as a keyed sink receives them from the shuffle
 *       (turning the generated rows into them is the shuffle's work, which the keyed reference
 *       pays too, and is not timed), and a string's UTF-8 bytes are copied from the row's memory
 *       as they are, not decoded and encoded again;
 *   <li><b>newest row per key</b>: each row's key put into a plain open-addressing hash map from
 *       key to row, replacing the row it updates. A table with a primary key holds each key once,
 *       so some step must find every key's newest row before the final rows can be written; this
 *       is the least that step costs, one probe a row;
 *   <li><b>WAL bytes</b>: those batches written once as an Arrow IPC stream to a local file,
 *       without fsync (the MemWAL spec's WAL entries are Arrow IPC);
 *   <li><b>Lance write</b>: lance-core writing the table's final rows once (every key's newest
 *       row, one dataset, as the last SSTables or a merge must at least write them), counted over
 *       the input rows; process CPU, so lance-core's native threads count.
 * </ol>
 *
 * <p>Leaving out the primary-key index files, fsync, manifests and compaction, and keeping only
 * one probe a row of deduplication, keeps it a lower bound. The job is CPU-bound on the machine's cores, so a sink reaches a goal g of a
 * reference only if its extra CPU per row stays under reference CPU per row x (1/g - 1): when
 * this floor exceeds that budget, no sink writing this table reaches the goal here.
 */
final class SinkFloor {
    private static final int BATCH = 8192;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU nanoseconds per input row of each step: medians over the repetitions. */
    record PerRow(
            double copy, double newestPerKey, double walBytes, double lanceWrite, long inputRows, long tableRows) {
        double total() {
            return copy + newestPerKey + walBytes + lanceWrite;
        }
    }

    private SinkFloor() {}

    static PerRow measure(Q1Rows rows, int repetitions, Path scratch) throws IOException {
        List<Double> copies = new ArrayList<>();
        List<Double> newest = new ArrayList<>();
        List<Double> wals = new ArrayList<>();
        List<Double> lances = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int r = 0; r < repetitions; r++) {
                double[] steps = copyIndexAndWal(rows, allocator, scratch.resolve("wal-" + r));
                copies.add(steps[0] / rows.rows);
                newest.add(steps[1] / rows.rows);
                wals.add(steps[2] / rows.rows);
                lances.add(lanceWrite(rows, allocator, scratch.resolve("table-" + r)) / rows.rows);
            }
        }
        return new PerRow(
                Spread.of(copies).median(),
                Spread.of(newest).median(),
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

    /**
     * Thread CPU ns of copying every input row into Arrow, of finding each key's newest row, and
     * of writing the batches as IPC.
     */
    private static double[] copyIndexAndWal(Q1Rows rows, BufferAllocator allocator, Path file) throws IOException {
        long copy = 0;
        long index = 0;
        long wal = 0;
        RowData[] batch = new RowData[BATCH];
        RowDataSerializer shuffle = new RowDataSerializer(Q1Rows.ROW_TYPE);
        DataOutputSerializer wire = new DataOutputSerializer(256);
        NewestRowPerKey newest = new NewestRowPerKey(rows.keys);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ArrowStreamWriter writer = new ArrowStreamWriter(root, null, channel)) {
            writer.start();
            for (long start = 0; start < rows.rows; start += BATCH) {
                int n = (int) Math.min(BATCH, rows.rows - start);
                for (int k = 0; k < n; k++) {
                    // The source's and the shuffle's work, not timed: a binary row, as the sink receives it.
                    wire.clear();
                    shuffle.serialize(rows.row(start + k), wire);
                    batch[k] = shuffle.deserialize(new DataInputDeserializer(wire.getCopyOfBuffer()));
                }
                long t0 = THREADS.getCurrentThreadCpuTime();
                fill(root, batch, n);
                long t1 = THREADS.getCurrentThreadCpuTime();
                BigIntVector keys = (BigIntVector) root.getVector(0);
                for (int k = 0; k < n; k++) {
                    newest.put(keys.get(k), start + k);
                }
                long t2 = THREADS.getCurrentThreadCpuTime();
                writer.writeBatch();
                long t3 = THREADS.getCurrentThreadCpuTime();
                copy += t1 - t0;
                index += t2 - t1;
                wal += t3 - t2;
            }
            writer.end();
        } finally {
            Files.deleteIfExists(file);
        }
        if (newest.size() != rows.keys) {
            throw new IllegalStateException("found " + newest.size() + " keys, expected " + rows.keys);
        }
        return new double[] {copy, index, wal};
    }

    private static void fill(VectorSchemaRoot root, RowData[] batch, int n) {
        root.clear();
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int k = 0; k < n; k++) {
            RowData row = batch[k];
            id.setSafe(k, row.getLong(0));
            setString(name, k, row.getString(1));
            for (int j = 1; j <= Q1Rows.VALUES; j++) {
                ((BigIntVector) root.getVector(1 + j)).setSafe(k, row.getLong(1 + j));
            }
        }
        root.setRowCount(n);
    }

    /** A binary row's string is UTF-8 in the row's memory already: copied from there as it is. */
    private static void setString(VarCharVector v, int k, StringData value) {
        if (value instanceof BinaryStringData binary && binary.getSegments().length == 1) {
            MemorySegment segment = binary.getSegments()[0];
            if (!segment.isOffHeap()) {
                v.setSafe(k, segment.getArray(), binary.getOffset(), binary.getSizeInBytes());
                return;
            }
        }
        v.setSafe(k, value.toBytes());
    }

    /**
     * Key to row, open addressing with linear probing, sized for every key at most half full:
     * the plainest map that finds a key's newest row in one probe a row.
     */
    static final class NewestRowPerKey {
        private static final long EMPTY = Long.MIN_VALUE;
        private final long[] keys;
        private final long[] rows;
        private final int mask;
        private int size;

        NewestRowPerKey(long expectedKeys) {
            int capacity = Integer.highestOneBit((int) Math.max(2, expectedKeys * 2 - 1)) << 1;
            keys = new long[capacity];
            rows = new long[capacity];
            mask = capacity - 1;
            Arrays.fill(keys, EMPTY);
        }

        void put(long key, long row) {
            int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 32) & mask;
            while (keys[slot] != EMPTY && keys[slot] != key) {
                slot = (slot + 1) & mask;
            }
            if (keys[slot] == EMPTY) {
                keys[slot] = key;
                size++;
            }
            rows[slot] = row;
        }

        int size() {
            return size;
        }
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
