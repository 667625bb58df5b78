package io.walsink.bench.jobs;

import io.walsink.bench.support.ProcessCpu;
import io.walsink.bench.support.SealedBatchesReader;
import io.walsink.bench.support.ThreadCpu;
import io.walsink.shard.memtable.LongKeyIndex;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.operation.Overwrite;

/**
 * One round of the floor on the calling thread: q1's rows as binary rows (untimed: the source's
 * and the shuffle's work) copied into Arrow, each key's newest row found with the sink's own
 * {@link LongKeyIndex}, every batch's Arrow IPC bytes (a WAL entry each) written into memory,
 * the newest rows gathered, and lance-core writing them as one fragment and its commit, as the
 * sink's SSTable write does. The Arrow batches, the row arena and the IPC buffer are allocated once
 * and reused by every round, so a round after the first touches no new memory of its own.
 */
final class FloorRound implements AutoCloseable {
    /** Rows made binary, then copied, per chunk: the chunk's timing reads /proc only twice. */
    private static final int CHUNK_BATCHES = 64;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU ns and minor faults of each step over one round; lance-core's are the whole process's. */
    record Spent(long[] cpuNanos, long[] faults) {
        static final String[] STEPS = {
            "copy binary rows into Arrow",
            "newest row per key (LongKeyIndex), superseded rows marked",
            "Arrow IPC bytes of the entries, into memory",
            "gather the newest rows (no probe: the marks)",
            "lance-core writes the final rows"
        };
    }

    private final Q1Rows rows;
    private final BufferAllocator allocator;
    private final FloorBatches input;
    private final FloorBatches output;
    private final BinaryRowData[] arena;
    private final RowDataSerializer serializer = new RowDataSerializer(Q1Rows.ROW_TYPE);
    private final MemoryChannel entries = new MemoryChannel();
    /** Bit p set: row p has a newer row of its key. */
    private final long[] superseded;

    private long ipcBytes;

    FloorRound(Q1Rows rows, BufferAllocator allocator) {
        this.rows = rows;
        this.allocator = allocator;
        this.input = new FloorBatches(allocator, rows.rows);
        this.output = new FloorBatches(allocator, Math.min(rows.keys, rows.rows));
        this.superseded = new long[Math.toIntExact((rows.rows + 63) / 64)];
        this.arena = new BinaryRowData[(int) Math.min(rows.rows, (long) CHUNK_BATCHES * FloorBatches.BATCH)];
        for (int i = 0; i < arena.length; i++) {
            arena[i] = new BinaryRowData(2 + Q1Rows.VALUES);
            arena[i].pointTo(MemorySegmentFactory.wrap(new byte[160]), 0, 0);
        }
    }

    /** Runs every step once and writes the final rows as a new dataset at {@code table}. */
    Spent run(Path table) throws IOException {
        long[] cpu = new long[Spent.STEPS.length];
        long[] faults = new long[Spent.STEPS.length];
        for (long start = 0; start < rows.rows; start += arena.length) {
            int n = (int) Math.min(arena.length, rows.rows - start);
            fillArena(start, n);
            long c0 = THREADS.getCurrentThreadCpuTime();
            long f0 = ThreadCpu.currentThreadMinorFaults();
            for (int off = 0; off < n; off += FloorBatches.BATCH) {
                int batch = (int) ((start + off) / FloorBatches.BATCH);
                input.copy(batch, arena, off, Math.min(n - off, FloorBatches.BATCH));
            }
            cpu[0] += THREADS.getCurrentThreadCpuTime() - c0;
            faults[0] += ThreadCpu.currentThreadMinorFaults() - f0;
        }
        List<VectorSchemaRoot> batches = input.roots();

        long c0 = THREADS.getCurrentThreadCpuTime();
        long f0 = ThreadCpu.currentThreadMinorFaults();
        LongKeyIndex newest = new LongKeyIndex(Math.toIntExact(rows.keys));
        Arrays.fill(superseded, 0);
        for (int b = 0; b < batches.size(); b++) {
            int n = batches.get(b).getRowCount();
            long first = (long) b * FloorBatches.BATCH;
            long ids = batches.get(b).getVector(0).getDataBufferAddress();
            for (int r = 0; r < n; r++) {
                long previous = newest.put(MemoryUtil.getLong(ids + 8L * r), first + r);
                if (previous >= 0) { // the put has read the replaced row anyway: mark it
                    superseded[(int) (previous >>> 6)] |= 1L << previous;
                }
            }
        }
        long c1 = THREADS.getCurrentThreadCpuTime();
        long f1 = ThreadCpu.currentThreadMinorFaults();
        ipcBytes = 0;
        for (VectorSchemaRoot batch : batches) {
            entries.reset();
            try (ArrowStreamWriter writer = new ArrowStreamWriter(batch, null, entries)) {
                writer.start();
                writer.writeBatch();
                writer.end();
            }
            ipcBytes += entries.size();
        }
        long c2 = THREADS.getCurrentThreadCpuTime();
        long f2 = ThreadCpu.currentThreadMinorFaults();
        int written = 0;
        for (int b = 0; b < batches.size(); b++) {
            written = output.appendSurvivors(batches.get(b), (long) b * FloorBatches.BATCH, superseded, written);
        }
        if (written % FloorBatches.BATCH != 0) {
            output.seal(written / FloorBatches.BATCH, written % FloorBatches.BATCH);
        }
        long c3 = THREADS.getCurrentThreadCpuTime();
        long f3 = ThreadCpu.currentThreadMinorFaults();
        if (written != newest.size()) {
            throw new IllegalStateException("gathered " + written + " rows for " + newest.size() + " keys");
        }
        cpu[1] = c1 - c0;
        faults[1] = f1 - f0;
        cpu[2] = c2 - c1;
        faults[2] = f2 - f1;
        cpu[3] = c3 - c2;
        faults[3] = f3 - f2;

        long p0 = ProcessCpu.nanos();
        long pf0 = ThreadCpu.processMinorFaults();
        writeDataset(table, written);
        cpu[4] = ProcessCpu.nanos() - p0;
        faults[4] = ThreadCpu.processMinorFaults() - pf0;
        return new Spent(cpu, faults);
    }

    /** Rows {@code start} to {@code start + n} of the stream as binary rows in the reused arena. */
    private void fillArena(long start, int n) {
        for (int k = 0; k < n; k++) {
            BinaryRowData binary = serializer.toBinaryRow(rows.row(start + k));
            BinaryRowData target = arena[k];
            MemorySegment segment = target.getSegments()[0];
            if (segment.size() < binary.getSizeInBytes()) {
                segment = MemorySegmentFactory.wrap(new byte[binary.getSizeInBytes()]);
            }
            BinarySegmentUtils.copyToBytes(
                    binary.getSegments(), binary.getOffset(), segment.getArray(), 0, binary.getSizeInBytes());
            target.pointTo(segment, 0, binary.getSizeInBytes());
        }
    }

    private void writeDataset(Path table, int written) throws IOException {
        String uri = table.toString();
        List<VectorSchemaRoot> finals =
                output.roots().subList(0, (written + FloorBatches.BATCH - 1) / FloorBatches.BATCH);
        WriteParams params =
                new WriteParams.Builder().withMaxRowsPerFile(Integer.MAX_VALUE).build();
        List<FragmentMetadata> fragments;
        try (SealedBatchesReader reader = new SealedBatchesReader(allocator, FloorBatches.SCHEMA, finals);
                ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
            Data.exportArrayStream(allocator, reader, stream);
            fragments = Fragment.create(uri, stream, params);
        }
        try (Transaction create = new Transaction.Builder()
                        .readVersion(0)
                        .operation(Overwrite.builder()
                                .fragments(fragments)
                                .schema(FloorBatches.SCHEMA)
                                .build())
                        .build();
                Dataset created = new CommitBuilder(uri, allocator)
                        .enableV2ManifestPaths(true)
                        .execute(create)) {
            if (created.countRows() != written) {
                throw new IllegalStateException("lance-core wrote " + created.countRows() + " rows of " + written);
            }
        }
    }

    /** IPC bytes of the last round's entries, all batches. */
    long ipcBytes() {
        return ipcBytes;
    }

    @Override
    public void close() {
        input.close();
        output.close();
    }

    /** A WAL entry's bytes in a reused array that grows only when an entry outgrows it. */
    private static final class MemoryChannel implements WritableByteChannel {
        private byte[] bytes = new byte[1 << 20];
        private int size;

        void reset() {
            size = 0;
        }

        int size() {
            return size;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + n));
            }
            src.get(bytes, size, n);
            size += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }
}
