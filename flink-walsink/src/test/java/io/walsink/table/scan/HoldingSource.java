package io.walsink.table.scan;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * A source whose readers fail once, at a known place: after {@code holdAt} rows a reader returns
 * NOTHING_AVAILABLE until a checkpoint taken while it holds has completed, then runs
 * {@link #whenHeld} (e.g. changes the table) and fails; the restored attempt passes everything
 * through. The interleaving comes from synchronisation, not timing. Statics carry what happened
 * across attempts (the MiniCluster runs in the test's JVM), so one such job runs at a time.
 */
public final class HoldingSource<S extends SourceSplit, C> implements Source<RowData, S, C> {
    public static final AtomicBoolean FAILED = new AtomicBoolean();
    public static final AtomicLong EMITTED_BEFORE_FAILURE = new AtomicLong();
    public static final AtomicLong EMITTED_AFTER_FAILURE = new AtomicLong();
    static volatile Runnable whenHeld = () -> {};

    private final Source<RowData, S, C> source;
    private final int holdAt;

    public HoldingSource(Source<RowData, S, C> source, int holdAt) {
        this.source = source;
        this.holdAt = holdAt;
    }

    /** An environment checkpointing every 100 ms whose job restarts at once after the failure. */
    public static StreamExecutionEnvironment environment() {
        return environment(Duration.ofMillis(100));
    }

    /** An environment checkpointing every {@code interval} whose job restarts at once after a failure. */
    public static StreamExecutionEnvironment environment(Duration interval) {
        Configuration config = new Configuration();
        config.setString("execution.checkpointing.interval", interval.toMillis() + "ms");
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        return StreamExecutionEnvironment.getExecutionEnvironment(config);
    }

    /** Before a job: nothing failed or emitted yet; {@code hook} runs once the checkpoint held for completed. */
    public static void reset(Runnable hook) {
        FAILED.set(false);
        EMITTED_BEFORE_FAILURE.set(0);
        EMITTED_AFTER_FAILURE.set(0);
        whenHeld = hook;
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SplitEnumerator<S, C> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
        return source.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<S, C> restoreEnumerator(SplitEnumeratorContext<S> context, C checkpoint) throws Exception {
        return source.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<S> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<C> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    public SourceReader<RowData, S> createReader(SourceReaderContext context) throws Exception {
        return new HoldingReader<>(source.createReader(context), holdAt);
    }

    /**
     * Before the failure: emits {@code holdAt} rows, then holds until a checkpoint taken while
     * holding completes, runs {@link #whenHeld} and fails. After it: passes everything through.
     */
    private static final class HoldingReader<S extends SourceSplit> implements SourceReader<RowData, S> {
        private final SourceReader<RowData, S> reader;
        private final int holdAt;
        private final boolean restored = FAILED.get();
        private final CompletableFuture<Void> released = new CompletableFuture<>();
        private long checkpointWhileHolding = -1;
        private boolean failNext;

        HoldingReader(SourceReader<RowData, S> reader, int holdAt) {
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
        public List<S> snapshotState(long checkpointId) {
            if (holding() && checkpointWhileHolding < 0) {
                checkpointWhileHolding = checkpointId;
            }
            return reader.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
            if (checkpointWhileHolding >= 0 && checkpointId >= checkpointWhileHolding && !failNext) {
                whenHeld.run();
                failNext = true;
                released.complete(null);
            }
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return holding() && !failNext ? released : reader.isAvailable();
        }

        @Override
        public void addSplits(List<S> splits) {
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
