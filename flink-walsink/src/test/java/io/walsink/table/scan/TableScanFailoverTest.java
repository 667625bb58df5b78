package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded scan on a MiniCluster fails over mid-scan, restores its splits from a checkpoint taken
 * after some rows, and meanwhile the table changed in every bucket's shard: the job's output is
 * exactly the snapshot pinned at its start.
 *
 * <p>The interleaving comes from synchronisation, not timing: the real scan source is wrapped in
 * a reader that, after {@code holdAt} rows, returns NOTHING_AVAILABLE until a checkpoint taken
 * while it holds has completed; it then changes the table and fails once. Statics carry what
 * happened across attempts (the MiniCluster runs in the test's JVM).
 */
class TableScanFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int KEYS = 4000;
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static final AtomicLong EMITTED_BEFORE_FAILURE = new AtomicLong();
    private static final AtomicLong EMITTED_AFTER_FAILURE = new AtomicLong();
    private static volatile String changing;

    @TempDir
    Path dir;

    @Test
    void aScanRestoredMidwayWhileTheTableChangedEmitsThePinnedSnapshotExactly() throws Exception {
        long seed = System.nanoTime();
        System.out.println("TableScanFailoverTest seed " + seed);
        int holdAt = 1 + new Random(seed).nextInt(KEYS - 1);
        String uri = dir.resolve("t").toString();
        LanceTables.create(uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        try (RootAllocator allocator = new RootAllocator()) {
            new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator)
                    .writeBase(LongStream.rangeClosed(1, KEYS)
                            .mapToObj(i -> TableScanRestoreTest.put(i, "base-" + i))
                            .toList());
        }
        List<String> atPin = TableScanRestoreTest.baseRows(1, KEYS);
        changing = uri;
        FAILED.set(false);
        EMITTED_BEFORE_FAILURE.set(0);
        EMITTED_AFTER_FAILURE.set(0);

        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", "100ms");
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        WalTableScanSource scan = new WalTableScanSource(TableScanRestoreTest.scan(uri, ReadMode.COMMITTED));
        List<String> emitted = new ArrayList<>();
        try (CloseableIterator<String> rows = env.fromSource(
                        new FailingOnceSource(scan, holdAt),
                        WatermarkStrategy.noWatermarks(),
                        "scan",
                        InternalTypeInfo.ofFields(new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)))
                .map(row -> row.getLong(0) + "=" + row.getString(1))
                .executeAndCollect()) {
            rows.forEachRemaining(emitted::add);
        }

        assertThat(FAILED).as("the scan failed once, seed %s", seed).isTrue();
        assertThat(EMITTED_BEFORE_FAILURE.get()).as("rows before the failure").isEqualTo(holdAt);
        assertThat(emitted).as("holding at %s, seed %s", holdAt, seed).containsExactlyInAnyOrderElementsOf(atPin);
        assertThat(EMITTED_AFTER_FAILURE.get())
                .as("the restored attempt resumed from the checkpoint, not from the start")
                .isEqualTo(KEYS - holdAt);
    }

    /** Every key deleted and others written, in every bucket's shard, published. */
    private static void changeTheTable() {
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(changing, allocator)) {
            for (long id = 1; id <= KEYS; id += 2) {
                writers.write(id, "gone", true);
                writers.write(id + KEYS, "new", false);
            }
            writers.publish();
        }
    }

    /** The scan source with its readers wrapped in {@link HoldingReader}. */
    private static final class FailingOnceSource implements Source<RowData, TableScanSplit, List<TableScanSplit>> {
        private final WalTableScanSource scan;
        private final int holdAt;

        FailingOnceSource(WalTableScanSource scan, int holdAt) {
            this.scan = scan;
            this.holdAt = holdAt;
        }

        @Override
        public Boundedness getBoundedness() {
            return scan.getBoundedness();
        }

        @Override
        public SplitEnumerator<TableScanSplit, List<TableScanSplit>> createEnumerator(
                SplitEnumeratorContext<TableScanSplit> context) {
            return scan.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<TableScanSplit, List<TableScanSplit>> restoreEnumerator(
                SplitEnumeratorContext<TableScanSplit> context, List<TableScanSplit> checkpoint) {
            return scan.restoreEnumerator(context, checkpoint);
        }

        @Override
        public SimpleVersionedSerializer<TableScanSplit> getSplitSerializer() {
            return scan.getSplitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<List<TableScanSplit>> getEnumeratorCheckpointSerializer() {
            return scan.getEnumeratorCheckpointSerializer();
        }

        @Override
        public SourceReader<RowData, TableScanSplit> createReader(SourceReaderContext context) throws Exception {
            return new HoldingReader(scan.createReader(context), holdAt);
        }
    }

    /**
     * Before the failure: emits {@code holdAt} rows, then holds until a checkpoint taken while
     * holding completes, changes the table and fails. After it: passes everything through.
     */
    private static final class HoldingReader implements SourceReader<RowData, TableScanSplit> {
        private final SourceReader<RowData, TableScanSplit> reader;
        private final int holdAt;
        private final boolean restored = FAILED.get();
        private final CompletableFuture<Void> released = new CompletableFuture<>();
        private long checkpointWhileHolding = -1;
        private boolean failNext;

        HoldingReader(SourceReader<RowData, TableScanSplit> reader, int holdAt) {
            this.reader = reader;
            this.holdAt = holdAt;
        }

        private boolean holding() {
            return !restored && EMITTED_BEFORE_FAILURE.get() >= holdAt;
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<RowData> output) throws Exception {
            if (failNext) {
                FAILED.set(true);
                throw new IllegalStateException("injected failure after " + holdAt + " rows");
            }
            if (holding()) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            return reader.pollNext(new Counting(output, restored ? EMITTED_AFTER_FAILURE : EMITTED_BEFORE_FAILURE));
        }

        @Override
        public List<TableScanSplit> snapshotState(long checkpointId) {
            if (holding() && checkpointWhileHolding < 0) {
                checkpointWhileHolding = checkpointId;
            }
            return reader.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
            if (checkpointWhileHolding >= 0 && checkpointId >= checkpointWhileHolding && !failNext) {
                changeTheTable();
                failNext = true;
                released.complete(null);
            }
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return holding() && !failNext ? released : reader.isAvailable();
        }

        @Override
        public void addSplits(List<TableScanSplit> splits) {
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }

    /** Counts the rows a reader emits; one row per poll, so holding after a count is exact. */
    private static final class Counting implements ReaderOutput<RowData> {
        private final ReaderOutput<RowData> output;
        private final AtomicLong count;

        Counting(ReaderOutput<RowData> output, AtomicLong count) {
            this.output = output;
            this.count = count;
        }

        @Override
        public void collect(RowData row) {
            output.collect(row);
            count.incrementAndGet();
        }

        @Override
        public void collect(RowData row, long timestamp) {
            output.collect(row, timestamp);
            count.incrementAndGet();
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            output.emitWatermark(watermark);
        }

        @Override
        public void markIdle() {
            output.markIdle();
        }

        @Override
        public void markActive() {
            output.markActive();
        }

        @Override
        public SourceOutput<RowData> createOutputForSplit(String splitId) {
            return output.createOutputForSplit(splitId);
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            output.releaseOutputForSplit(splitId);
        }
    }
}
