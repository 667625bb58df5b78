package io.walsink.bench.jmh;

import io.walsink.bench.support.LocalShardTable;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.shard.memtable.Memtable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Encoding a memtable's pending batches as one WAL entry (the CPU half of a WAL append; the PUT
 * is storage-bound and not measured here), against writing the same batches as a plain Arrow
 * IPC stream. The codec adds schema and null checks and the entry metadata.
 *
 * <p>{@code rows} = rows per entry: at a 100 ms tick, 1 000 rows is a 10k rows/s shard and
 * 100 000 rows a 1M rows/s shard (or a frozen memtable's tail). Throughput in bytes is reported
 * through the {@link Bytes} counter.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@ReportedAs(unit = "MB/s", counter = "bytes", scale = 1e-6)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class WalEncodeBenchmark {
    @Param({"1000", "100000"})
    public int rows;

    private BufferAllocator allocator;
    private LocalShardTable table;
    private Memtable memtable;
    private List<VectorSchemaRoot> batches;
    private WalEntryCodec codec;

    /** Encoded bytes, reported by JMH as a rate next to the entries per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Bytes {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void open() {
        allocator = new RootAllocator();
        table = LocalShardTable.create(allocator);
        long[] ids = new SplittableRandom(3).longs(rows, 0, 1_000_000).toArray();
        memtable = MemtableFiller.of(table.context(), ids);
        batches = memtable.pendingBatches();
        codec = table.context().codec();
    }

    @Benchmark
    public byte[] baseline(Bytes counter) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot staging = VectorSchemaRoot.create(batches.get(0).getSchema(), allocator);
                ArrowStreamWriter writer = new ArrowStreamWriter(staging, null, Channels.newChannel(out))) {
            writer.start();
            VectorLoader loader = new VectorLoader(staging);
            for (VectorSchemaRoot batch : batches) {
                try (ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
                    loader.load(record);
                }
                writer.writeBatch();
            }
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] entry = out.toByteArray();
        counter.bytes += entry.length;
        return entry;
    }

    @Benchmark
    public byte[] codecEncode(Bytes counter) {
        byte[] entry = codec.encode(1, 1, batches);
        counter.bytes += entry.length;
        return entry;
    }

    @TearDown(Level.Trial)
    public void close() {
        memtable.close();
        allocator.close();
        table.close();
    }
}
