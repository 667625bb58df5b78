package io.walsink.bench.jmh;

import io.walsink.bench.support.LocalShardTable;
import io.walsink.bench.support.SealedBatchesReader;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.table.TableLocation;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.LocalObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.Dataset;
import org.lance.WriteParams;
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
 * Writing a frozen 100k-row memtable as an SSTable, in memtable rows per second, three ways:
 * <ul>
 *   <li>{@code baseline}: every row with one lance-core {@code Dataset.write}, no deduplication
 *       (what lance-core costs by itself; not a valid SSTable when keys repeat);
 *   <li>{@code newestRowsOnly}: {@link SsTableWriter}, what the sink does;
 *   <li>{@code allRowsPlusDeletes}: every row, then {@code Dataset.delete} of the superseded rows,
 *       which commits a deletion vector on fragment 0 (the format's other option).
 * </ul>
 * {@code updated} is the share of rows that update a key seen earlier in the memtable.
 * Writes go to local disk; folders are removed after each iteration.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@ReportedAs(unit = "rows/s")
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class SsTableFlushBenchmark {
    static final int ROWS = 100_000;

    @Param({"0.1", "0.9"})
    public double updated;

    private BufferAllocator allocator;
    private LocalShardTable table;
    private Memtable frozen;
    private SsTableWriter writer;
    private PrimaryKeyEncoder keys;
    private Path scratch;
    private final AtomicLong folders = new AtomicLong();

    @Setup(Level.Trial)
    public void open() {
        allocator = new RootAllocator();
        table = LocalShardTable.create(allocator);
        TableContext ctx = table.context();
        frozen = MemtableFiller.of(ctx, UpdatedKeys.sequence(ROWS, updated, 11));
        frozen.freeze();
        keys = ctx.keys();
    }

    @Setup(Level.Iteration)
    public void freshFolder() {
        scratch = table.scratch("sstables-" + folders.incrementAndGet());
        // as in production, each SSTable also gets its primary-key index (GenerationPkIndex)
        writer = new SsTableWriter(
                new TableLocation(new LocalObjectStore(scratch), scratch.toString(), Map.of()),
                UUID.randomUUID(),
                table.context().storage(),
                allocator);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long baseline() {
        try (Dataset ds = writeAllRows()) {
            return ds.countRows();
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public WrittenSsTable newestRowsOnly() {
        return writer.write(frozen);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long allRowsPlusDeletes() {
        String predicate = SupersededRows.deletePredicate(frozen, keys);
        try (Dataset ds = writeAllRows()) {
            if (predicate != null) {
                ds.delete(predicate);
            }
            return ds.countRows();
        }
    }

    private Dataset writeAllRows() {
        String uri = scratch.resolve("all-" + folders.incrementAndGet()).toString();
        try (SealedBatchesReader reader = new SealedBatchesReader(allocator, frozen.schema(), frozen.sealedBatches())) {
            return Dataset.write()
                    .allocator(allocator)
                    .reader(reader)
                    .uri(uri)
                    .mode(WriteParams.WriteMode.CREATE)
                    .maxRowsPerFile(Integer.MAX_VALUE)
                    .execute();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @TearDown(Level.Iteration)
    public void dropFolder() {
        LocalShardTable.deleteRecursively(scratch);
    }

    @TearDown(Level.Trial)
    public void close() {
        frozen.close();
        allocator.close();
        table.close();
    }
}
