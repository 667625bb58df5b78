package io.walsink.table.scan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * Drives a {@link WalTableScanSource} the way Flink's source operator and coordinator do, one
 * reader at a time, without a cluster: the enumerator hands out splits, a reader polls rows into
 * a recording output, checkpoints go through the source's serializers.
 */
public final class ScanHarness {
    private final WalTableScanSource source;
    private final SplitEnumerator<TableScanSplit, List<TableScanSplit>> enumerator;
    private final EnumeratorContext enumeratorContext = new EnumeratorContext();

    /** Starts the scan: the enumerator is created (and pins what it reads) now. */
    ScanHarness(TableScan scan) {
        this.source = new WalTableScanSource(scan);
        this.enumerator = source.createEnumerator(enumeratorContext);
        enumerator.start();
    }

    /** Every split the enumerator hands out, asked for as a reader would. */
    List<TableScanSplit> allSplits() {
        List<TableScanSplit> splits = new ArrayList<>();
        while (true) {
            enumeratorContext.assigned.clear();
            enumerator.handleSplitRequest(0, "localhost");
            if (enumeratorContext.assigned.isEmpty()) {
                return splits;
            }
            splits.addAll(enumeratorContext.assigned);
        }
    }

    SourceReader<RowData, TableScanSplit> reader(List<TableScanSplit> splits) {
        SourceReader<RowData, TableScanSplit> reader = source.createReader(new ReaderContext());
        reader.start();
        reader.addSplits(splits);
        reader.notifyNoMoreSplits();
        return reader;
    }

    /** Polls until {@code rows} rows were emitted (all of them when negative) or the input ends. */
    static List<RowData> poll(SourceReader<RowData, TableScanSplit> reader, int rows) throws Exception {
        RecordingOutput output = new RecordingOutput();
        while (rows < 0 || output.rows.size() < rows) {
            InputStatus status = reader.pollNext(output);
            if (status == InputStatus.END_OF_INPUT) {
                break;
            }
            if (status == InputStatus.NOTHING_AVAILABLE) {
                reader.isAvailable().get(); // a future the reader completes, not a sleep
            }
        }
        return output.rows;
    }

    /** The reader's checkpoint as Flink stores and restores it: through the split serializer. */
    List<TableScanSplit> checkpoint(SourceReader<RowData, TableScanSplit> reader, long id) throws Exception {
        return throughSerializer(source.getSplitSerializer(), reader.snapshotState(id));
    }

    /** Splits as a restore gets them back: serialized and read again at the serializer's version. */
    public static <S> List<S> throughSerializer(SimpleVersionedSerializer<S> serializer, List<S> splits)
            throws Exception {
        List<S> restored = new ArrayList<>();
        for (S split : splits) {
            restored.add(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)));
        }
        return restored;
    }

    /** A {@link ReaderOutput} that keeps every row it is given. */
    public static final class RecordingOutput implements ReaderOutput<RowData> {
        public final List<RowData> rows = new ArrayList<>();

        @Override
        public void collect(RowData row) {
            rows.add(row);
        }

        @Override
        public void collect(RowData row, long timestamp) {
            rows.add(row);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<RowData> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    /** A reader's context with one subtask, whose split requests the harness answers itself. */
    public static final class ReaderContext implements SourceReaderContext {
        private final SourceReaderMetricGroup metrics;

        public ReaderContext() {
            this(UnregisteredMetricsGroup.createSourceReaderMetricGroup());
        }

        public ReaderContext(SourceReaderMetricGroup metrics) {
            this.metrics = metrics;
        }

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return metrics;
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {
            // splits are added by the harness
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
            throw new UnsupportedOperationException();
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            throw new UnsupportedOperationException();
        }
    }

    private static final class EnumeratorContext implements SplitEnumeratorContext<TableScanSplit> {
        final List<TableScanSplit> assigned = new ArrayList<>();

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int currentParallelism() {
            return 1;
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return Map.of(0, new ReaderInfo(0, "localhost")); // the one reader the harness drives
        }

        @Override
        public void assignSplits(SplitsAssignment<TableScanSplit> assignment) {
            assignment.assignment().values().forEach(assigned::addAll);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {}

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void callAsync(
                Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }
}
