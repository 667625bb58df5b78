package io.walsink.flink.internal;

import io.walsink.flink.SinkOptions;
import io.walsink.flink.WalSinkOptions;
import io.walsink.flink.convert.ChangeAction;
import io.walsink.flink.internal.memory.SinkAllocators;
import io.walsink.flink.internal.memory.WriterBudget;
import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.flink.internal.routing.BucketTicker;
import io.walsink.flink.internal.state.CheckpointAlignment;
import io.walsink.flink.internal.state.JobLineage;
import io.walsink.flink.internal.state.JobStartDescriptors;
import io.walsink.flink.internal.state.ShardDescriptorState;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.RestoreExclusion;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed writer operator: one shard per bucket it receives, over named parts. Rows reach the
 * shards through {@link RowsByBucket} (in blocks grouped by bucket when it holds many). {@link
 * ShardDrivers} (the shard engine's scheduling) decides every append, SSTable write and
 * publication and keeps the memory budgets; its I/O runs on {@link IoDriver}'s threads, its timers
 * are Flink processing-time timers ({@link BucketTicker}). {@link CheckpointAlignment} keeps the
 * shards in step with checkpoints; {@link ShardDescriptorState} is the keyed state (WAL positions,
 * not rows). On restore ({@link Buckets#restoreOwned}) owned shards reopen as of their checkpoint,
 * or as of the job's start ({@link JobLineage}, {@link JobStartDescriptors}); without
 * checkpointing nothing is rolled back (at-least-once). Whether checkpointing is on is read from
 * the running job's configuration, not decided while the graph was built.
 */
final class ShardWriterOperator<IN, OUT> extends AbstractStreamOperator<OUT>
        implements OneInputStreamOperator<IN, OUT>, Triggerable<Integer, VoidNamespace> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ShardWriterOperator.class);
    /** How long close() waits for I/O in flight before it frees the memory that I/O reads. */
    private static final long CLOSE_WAIT_SECONDS = 60;

    private final WalSinkOptions options;
    private final RowType rowType;
    private final InputConversion<IN> conversion;
    private final transient MailboxExecutor mailbox;

    /** The task's name with its subtask index, for messages. */
    private transient String owner;

    private transient boolean checkpointing;
    private transient boolean restored;
    private transient JobLineage lineage;
    private transient BucketTicker ticker;
    private transient BufferAllocator allocator;
    /** The writer's memory: sizes, managed-memory reservation, allocator (released at close). */
    private transient WriterBudget budget;

    private transient ObjectStore store;
    private transient IoDriver io;
    private transient ShardDrivers drivers;
    private transient RecordInput<IN> records;
    private transient RowsByBucket input;
    private transient BucketRouting routing;
    private transient Buckets buckets;
    private transient CheckpointAlignment checkpoints;
    private transient ShardWriterMetrics metrics;
    private transient boolean finished;
    /** Compaction and garbage collection, on subtask 0 only; null when both are off. */
    private transient SinkMaintenance maintenance;

    /** Emits nothing: its output only exists because a pre-write topology must return a stream. */
    public ShardWriterOperator(
            StreamOperatorParameters<OUT> parameters,
            WalSinkOptions options,
            RowType rowType,
            InputConversion<IN> conversion) {
        super(parameters);
        this.options = options;
        this.rowType = rowType;
        this.conversion = conversion;
        this.mailbox = parameters.getMailboxExecutor();
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restored = context.isRestored();
        lineage = JobLineage.restore(
                context.getOperatorStateStore(),
                getRuntimeContext().getJobInfo().getJobId().toHexString());
    }

    @Override
    public void open() throws Exception {
        super.open();
        // The running job's configuration, wherever the interval was set (SQL SET, a config file, the
        // environment): what the graph builder saw may differ.
        checkpointing =
                CheckpointingOptions.isCheckpointingEnabled(getRuntimeContext().getJobConfiguration());
        owner = getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks();
        budget = WriterBudget.open(
                options.settings(),
                getContainingTask().getEnvironment(),
                getOperatorConfig(),
                getRuntimeContext(),
                this,
                owner);
        ShardWriterConfig config = budget.config();
        allocator = budget.allocator();
        store = options.openStore();
        TableLocation location = options.location(store);
        TableInfo table = location.describe(true);
        TableContext tableContext = new TableContext(location, table, options.schemaProfile(), config, allocator);
        io = new IoDriver(
                mailbox,
                options.ioThreads(),
                "walsink-io-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                failure -> SinkAllocators.explain(failure, allocator, owner),
                getContainingTask()::isMailboxLoopRunning);
        routing = new BucketRouting(
                table.sharding().sharding().numBuckets().orElse(AppendShards.of(table)),
                getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
        ShardDescriptorState descriptors = ShardDescriptorState.open(getRuntimeContext(), routing, this::setCurrentKey);
        ticker = new BucketTicker(
                getInternalTimerService("walsink-ticker", VoidNamespaceSerializer.INSTANCE, this),
                routing,
                this::setCurrentKey);
        records = RecordInput.open(conversion, rowType, tableContext, allocator);
        BucketShards shardIds = BucketShards.discover(store, table);
        // The job and its lineage, not the attempt: a restarted attempt takes back the maintenance
        // lease its dead predecessor left instead of waiting for it to expire.
        LeaseClaimant claimant = LeaseClaimant.job(lineage.current(), lineage.oldestFirst());
        metrics = new ShardWriterMetrics(getMetricGroup());
        drivers = new ShardDrivers(
                io,
                ticker,
                metrics,
                this::now,
                !checkpointing,
                budget.unflushedPerSubtask(),
                allocator::getAllocatedMemory,
                budget.pressureBytes(),
                options.settings().get(SinkOptions.WAL_MAX_APPENDS_PER_SECOND));
        buckets = new Buckets(
                tableContext,
                shardIds,
                checkpointing ? new JobStartDescriptors(store, lineage.current()) : null,
                new RestoreExclusion(store, options.lanceUri(), claimant),
                drivers,
                options.ioThreads(),
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        IntPredicate owned = Buckets.ownedBy(getRuntimeContext().getTaskInfo(), routing);
        // The buckets it will hold, not the shards open so far: else its first 16 shards, which
        // rows reach one at a time, would open one after another on the task thread.
        int ownedBuckets =
                (int) IntStream.range(0, routing.buckets()).filter(owned).count();
        input = new RowsByBucket(
                new RowIntoShard(records, drivers, buckets, metrics, e -> SinkAllocators.explain(e, allocator, owner)),
                getProcessingTimeService(),
                () -> Math.max(drivers.size(), ownedBuckets),
                getExecutionConfig().isObjectReuseEnabled());
        checkpoints = new CheckpointAlignment(
                drivers,
                descriptors,
                lineage,
                tableContext,
                options.settings().get(SinkOptions.MEMTABLE_MAX_AGE).toMillis(),
                options.settings().get(SinkOptions.MEMTABLE_MAX_AGED_PER_CHECKPOINT));
        maintenance = SinkMaintenance.forSubtask(
                options,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                store,
                metrics,
                claimant,
                !table.primaryKey().isEmpty());
        try {
            buckets.restoreOwned(
                    restored ? descriptors.restored(getKeyedStateBackend()) : List.of(),
                    checkpointing ? lineage.oldestFirst() : List.of(),
                    store,
                    owned);
        } catch (RuntimeException e) {
            throw budget.restoreFailure(e, owner);
        }
        getProcessingTimeService()
                .scheduleWithFixedDelay(
                        t -> refreshMetrics(), ShardWriterMetrics.REFRESH_MILLIS, ShardWriterMetrics.REFRESH_MILLIS);
        int agedPerCheckpoint = options.settings().get(SinkOptions.MEMTABLE_MAX_AGED_PER_CHECKPOINT);
        LOG.info(
                "walsink writer {} opened on {} ({} shards restored, checkpoint-aligned publication: {}, {});"
                        + " rows of its {} buckets are published within {} checkpoint(s) past sink.memtable.max-age"
                        + " (at most {} aged memtables written per checkpoint)",
                owner,
                options.path(),
                drivers.size(),
                checkpointing,
                budget.describe(),
                ownedBuckets,
                ShardDrivers.checkpointsToVisibility(ownedBuckets, agedPerCheckpoint),
                agedPerCheckpoint);
    }

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        ChangeAction action = records.next(element.getValue());
        if (action != ChangeAction.SKIP) {
            input.take(records.current(), routing.bucketOf((Integer) getCurrentKey()), action == ChangeAction.DELETE);
        }
    }

    @Override
    public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) {
        drivers.tick(ticker.bucketOf(timer), timer.getTimestamp());
    }

    @Override
    public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) {}

    /** Walks every shard: on a rhythm of its own, since a subtask may own hundreds of buckets. */
    private void refreshMetrics() {
        metrics.refresh(drivers.all());
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        input.writeAll();
        checkpoints.beforeBarrier();
    }

    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId, long timestamp, CheckpointOptions options, CheckpointStreamFactory storageLocation)
            throws Exception {
        if (options.getCheckpointType() instanceof SavepointType savepoint && savepoint.isSynchronous()) {
            checkpoints.stopping(checkpointId); // stop-with-savepoint
        }
        return super.snapshotState(checkpointId, timestamp, options, storageLocation);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        checkpoints.snapshot(context.getCheckpointId());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (maintenance != null) {
            maintenance.checkpointCompleted(now());
        }
        checkpoints.completed(checkpointId, finished);
        refreshMetrics(); // once per checkpoint; after the final one, the gauges show what it published
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        checkpoints.aborted(checkpointId);
    }

    /**
     * End of input: make every row durable and write every memtable as an SSTable. Without
     * checkpointing they are published here. With it they are published by the final
     * checkpoint that Flink takes after {@code finish()}, so that even the last rows become
     * visible to readers of published data only once a checkpoint covers them.
     */
    @Override
    public void finish() throws Exception {
        input.writeAll();
        drivers.writeEverything();
        finished = true;
        if (!checkpointing) {
            drivers.requestPublicationOfAll();
            drivers.awaitPublications();
        }
        refreshMetrics(); // the gauges' last values: what the writer ended with
        LOG.info("walsink writer {} finished: {}", owner, drivers.summary());
        super.finish();
    }

    /**
     * Runs on success, failure and cancellation alike: frees every Arrow buffer, then the allocator.
     * I/O in flight reads the memtables (lance-core writes SSTables straight from their buffers), so
     * the memory is freed only once the I/O threads have ended: here, or, when they outlast the wait
     * (a hung store call), by {@link ShardResources} as soon as they end.
     */
    @Override
    public void close() throws Exception {
        try {
            new ShardResources(owner, maintenance, budget, io, drivers, records, store, allocator)
                    .release(finished, CLOSE_WAIT_SECONDS);
        } finally {
            super.close();
        }
    }

    private long now() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }
}
