package io.walsink.bench.jmh;

import io.walsink.bench.support.BatchRowWriter;
import io.walsink.bench.support.KeyValueRows;
import io.walsink.bench.support.LocalShardTable;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.driver.QueuedShardIo;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Rows per second into a shard's memtable, against the Arrow row copy that a memtable
 * fundamentally is. The difference is the engine: input checks, key encoding, the primary-key
 * index and size accounting.
 *
 * <p>An invocation writes one 8192-row batch (one memtable batch), so the per-invocation
 * helpers are cheap next to it. The writer is replaced when its memtable is about to freeze
 * (a batch put may freeze it): without SSTable flushes frozen memtables would pile up, a
 * freeze through the driver starts a WAL append, and a memtable's lifetime (one million rows by
 * default) is the unit whose cost we want, including its growing index.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@ReportedAs(unit = "rows/s")
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class MemtablePutBenchmark {
    static final int ROWS = 8_192;

    @Param({"1000000", "10000"})
    public long keySpace;

    private BufferAllocator allocator;
    private LocalShardTable table;
    private ShardWriter writer;
    private ShardDrivers drivers;
    private ShardDriver driver;
    private BatchRowWriter row;
    private VectorSchemaRoot input;
    private final SplittableRandom random = new SplittableRandom(42);

    private Schema storageSchema;
    private int tombstoneColumn;
    private final List<VectorSchemaRoot> copies = new ArrayList<>();
    private long copiedRows;

    @Setup(Level.Trial)
    public void open() {
        allocator = new RootAllocator();
        ShardWriterConfig defaults = ShardWriterConfig.defaults();
        table = LocalShardTable.create(
                allocator,
                defaults.toBuilder()
                        .walMaxBufferBytes(defaults.memtableMaxBytes())
                        .build());
        input = KeyValueRows.randomBatch(allocator, ROWS, keySpace, random);
        row = new BatchRowWriter(input);
        openWriter();
        storageSchema = table.context().storage().schema();
        tombstoneColumn = table.context().tombstoneColumn();
    }

    @Setup(Level.Invocation)
    public void nextKeys() {
        KeyValueRows.refillKeys(input, keySpace, random);
    }

    /** Baseline: copy each row into a new memtable-shaped batch, as {@code Memtable.append} does. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void baseline() {
        VectorSchemaRoot target = VectorSchemaRoot.create(storageSchema, allocator);
        target.allocateNew();
        List<FieldVector> from = input.getFieldVectors();
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0, in = 0; c < target.getFieldVectors().size(); c++) {
                FieldVector column = target.getVector(c);
                if (c == tombstoneColumn) {
                    ((BitVector) column).setSafe(r, 0);
                } else {
                    column.copyFromSafe(r, r, from.get(in++));
                }
            }
        }
        target.setRowCount(ROWS);
        copies.add(target);
        copiedRows += ROWS;
    }

    /**
     * The production path of the Flink operator: one {@code RowWriter} call per row through the
     * shard's driver (its per-row bookkeeping and size checks included). The WAL buffer is as
     * large as a memtable (a memtable of these rows freezes by row count first) and the ticker
     * never fires, so no I/O runs while timed.
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void driverWriteRow() throws InterruptedException {
        for (int r = 0; r < ROWS; r++) {
            row.at = r;
            drivers.write(driver, row, false);
        }
    }

    /** The batch path: one call, the batch checked once. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void shardPutBatch() {
        writer.put(input);
    }

    @TearDown(Level.Invocation)
    public void recycleFullMemtables() {
        // Before the next batch would fill the memtable: through the driver a freeze starts the WAL
        // append of the whole memtable, inline here, which is I/O, not the row path being measured.
        if (writer.frozenMemtables() > 0
                || writer.stats().rowsWritten() + ROWS >= ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS) {
            writer.close();
            openWriter();
        }
        if (copiedRows >= ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS) {
            copies.forEach(VectorSchemaRoot::close);
            copies.clear();
            copiedRows = 0;
        }
    }

    private void openWriter() {
        writer = table.openShard();
        drivers = ShardDrivers.unbudgeted(new QueuedShardIo(Runnable::run), (bucket, due) -> {}, () -> 0L);
        driver = drivers.add(0, writer);
    }

    @TearDown(Level.Trial)
    public void close() {
        writer.close();
        copies.forEach(VectorSchemaRoot::close);
        input.close();
        allocator.close();
        table.close();
    }
}
