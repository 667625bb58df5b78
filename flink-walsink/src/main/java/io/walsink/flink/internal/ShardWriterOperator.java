package io.walsink.flink.internal;

import io.walsink.flink.WalSinkOptions;
import io.walsink.flink.convert.ChangeAction;
import io.walsink.flink.convert.RowDataArrowWriter;
import io.walsink.format.manifest.LegacyShardIdsException;
import io.walsink.format.manifest.OverlappingShardsException;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.maintenance.LeaseClaimant;
import io.walsink.maintenance.RestoreExclusion;
import io.walsink.shard.BaseVersionRefresh;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.storage.ObjectStore;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.execution.SuppressRestartsException;
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
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed operator that owns one shard writer per bucket it receives; a shell over named parts.
 *
 * <ul>
 *   <li>{@link Bucket}: one bucket's writer and bookkeeping; {@link ShardDescriptorState}, the
 *       keyed state (per bucket) holding the shard's {@link ShardDescriptor}: WAL positions, not
 *       rows, so a checkpoint is a few dozen bytes per shard.
 *   <li>{@link BucketTicker}: a processing-time timer per shard with pending rows.
 *   <li>{@link BucketTasks} over an {@link IoDriver}: appends, SSTable writes and manifest updates
 *       run on I/O threads, one of
 *       each in flight per shard; completions come back through the mailbox.
 *   <li>{@link SubtaskMemory} and each shard's budget: Flink backpressure instead of an OOM.
 *   <li>{@link PublicationLedger}: SSTables a checkpoint covers are published when it completes.
 *       {@link #prepareSnapshotPreBarrier} makes every row durable first.
 *   <li>Restore: every owned shard is reopened as of its descriptor; with checkpointing on, shards
 *       this job's {@link JobLineage} opened that no checkpoint covers are reopened as of the job's
 *       start ({@link JobStartDescriptors}). Without checkpointing nothing is rolled back: a
 *       restart replays the WAL and keeps what is published (at-least-once).
 *   <li>Whether checkpointing is on is read from the running job's configuration, not decided
 *       while the graph was built.
 * </ul>
 */
final class ShardWriterOperator<IN> extends AbstractStreamOperator<IN>
        implements OneInputStreamOperator<IN, IN>, Triggerable<Integer, VoidNamespace> {
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
    private transient ShardDescriptorState descriptors;
    private transient BucketTicker ticker;
    private transient BufferAllocator allocator;
    /** What this writer reserved of its slot's managed memory (released at close). */
    private transient ManagedMemoryShare managedMemory;

    private transient ObjectStore store;
    private transient TableInfo table;
    private transient TableContext tableContext;
    private transient IoDriver io;
    private transient BucketTasks tasks;
    private transient Function<IN, RowData> converter;
    private transient RowStaging staging;
    private transient RowDataInput input;
    private transient BucketRouting routing;
    private transient Buckets buckets;
    private transient PublicationLedger ledger;
    private transient ShardWriterMetrics metrics;
    private transient SubtaskMemory memory;
    private transient boolean finished;
    private transient long maxAgeMillis;
    /** Compaction and garbage collection, on subtask 0 only; null when both are off. */
    private transient SinkMaintenance maintenance;
    /** A synchronous savepoint (stop-with-savepoint): the task may close right after it completes. */
    private transient long stoppingAtCheckpoint = -1;

    /** Emits nothing: its output only exists because a pre-write topology must return a stream. */
    public ShardWriterOperator(
            StreamOperatorParameters<IN> parameters,
            WalSinkOptions options,
            RowType rowType,
            InputConversion<IN> conversion) {
        super(parameters);
        this.options = options;
        this.rowType = rowType;
        this.conversion = conversion;
        this.mailbox = parameters.getMailboxExecutor();
    }

    // ------------------------------------------------------------------ lifecycle

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
        Configuration taskManager =
                getContainingTask().getEnvironment().getTaskManagerInfo().getConfiguration();
        managedMemory =
                new ManagedMemoryShare(getContainingTask().getEnvironment().getMemoryManager(), this, owner);
        WriterMemory.Slot slot = managedMemory.slot(getOperatorConfig(), getRuntimeContext(), taskManager);
        WriterMemory.Plan plan;
        try {
            plan = WriterMemory.plan(options.shardWriterConfig(), slot, owner);
        } catch (IllegalConfigurationException e) {
            // Every attempt would be sized the same way: fail once, before anything is written.
            throw new SuppressRestartsException(e);
        }
        ShardWriterConfig config = plan.config();
        managedMemory.reserve(plan.reserve());
        allocator = SinkAllocators.open(config.offHeapBytesPerSubtask(), owner);
        store = options.openStore();
        table = LanceTables.open(options.lanceUri(), options.lanceStorageOptions(), true);
        tableContext = new TableContext(
                store, table, options.lanceStorageOptions(), options.schemaProfile(), config, allocator);
        io = new IoDriver(
                mailbox,
                options.ioThreads(),
                "walsink-io-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                this::refreshMetrics,
                failure -> SinkAllocators.explain(failure, allocator, owner));
        converter = conversion.open(rowType);
        routing = new BucketRouting(
                table.sharding().sharding().numBuckets().orElse(1),
                getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
        descriptors = new ShardDescriptorState(
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>(
                                ShardDescriptorState.STATE_NAME,
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)),
                routing,
                this::setCurrentKey);
        ticker = new BucketTicker(
                getInternalTimerService("walsink-ticker", VoidNamespaceSerializer.INSTANCE, this),
                routing,
                this::setCurrentKey,
                this::now);
        RowDataArrowWriter rowWriter = RowDataArrowWriter.create(rowType, table.schema());
        tableContext.checkRowSchema(rowWriter.schema());
        input = new RowDataInput(rowWriter);
        staging = new RowStaging(rowWriter, tableContext, allocator);
        BucketShards shardIds;
        try {
            shardIds = BucketShards.discover(store, table);
        } catch (LegacyShardIdsException | OverlappingShardsException e) {
            // The table needs an operator's hand (a migration, or removing a shard); restarts cannot help.
            throw new SuppressRestartsException(e);
        }
        // The job and its lineage, not the attempt: a restarted attempt takes back the maintenance
        // lease its dead predecessor left instead of waiting for it to expire.
        LeaseClaimant claimant = LeaseClaimant.job(lineage.current(), lineage.oldestFirst());
        buckets = new Buckets(
                tableContext,
                shardIds,
                checkpointing ? new JobStartDescriptors(store, lineage.current()) : null,
                new RestoreExclusion(store, options.lanceUri(), claimant));
        ledger = new PublicationLedger();
        metrics = new ShardWriterMetrics(getMetricGroup());
        tasks = new BucketTasks(io, metrics, this::now, !checkpointing);
        maxAgeMillis = config.memtableMaxAge().toMillis();
        maintenance = SinkMaintenance.forSubtask(
                options, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), store, metrics, claimant);
        memory = new SubtaskMemory(
                config.maxUnflushedBytesPerSubtask(), allocator, pressureAt(config), tasks, io, this::now);
        try {
            restoreShards();
        } catch (RuntimeException e) {
            if (SinkAllocators.capReached(e)) {
                // Replaying the same WAL into the same cap would run out again on every restart.
                throw new SuppressRestartsException(SinkAllocators.explain(e, allocator, owner));
            }
            throw e;
        }
        LOG.info(
                "walsink writer {} opened on {} ({} shards restored, checkpoint-aligned publication: {}, off-heap cap {}:"
                        + " memtable {}, unflushed per subtask {}, WAL buffer {}, {}; managed memory reserved {} of"
                        + " its share {}, task off-heap per slot {})",
                owner,
                options.path(),
                buckets.size(),
                checkpointing,
                WriterMemory.human(allocator.getLimit()),
                WriterMemory.human(config.memtableMaxBytes()),
                WriterMemory.human(config.maxUnflushedBytesPerSubtask()),
                WriterMemory.human(config.walMaxBufferBytes()),
                plan.derived() ? "derived from the slot" : "as set or defaulted",
                WriterMemory.human(managedMemory.reserved()),
                WriterMemory.human(slot.managed()),
                slot.unlimited()
                        ? "unlimited"
                        : WriterMemory.human(slot.offHeap().getAsLong()));
    }

    /**
     * Allocated bytes above which the writer flushes as if over its unflushed budget: halfway
     * between that budget and the cap, so that SSTable writes in flight and replays keep headroom.
     */
    private static long pressureAt(ShardWriterConfig config) {
        long cap = config.offHeapBytesPerSubtask();
        return cap - (cap - config.maxUnflushedBytesPerSubtask()) / 2;
    }

    /**
     * Reopens the shards this subtask owns: as of the checkpoint for those it covers, as of the
     * job's start for those this job opened without a checkpoint covering them (a restart before
     * the first checkpoint, or a shard first opened after it). Shards this job never opened are
     * left alone, and so is everything without checkpointing: there is no checkpoint to roll
     * back to, and the promise is at-least-once.
     */
    private void restoreShards() throws Exception {
        if (restored) {
            for (ShardDescriptor descriptor : descriptors.restored(getKeyedStateBackend())) {
                buckets.restore(descriptor.bucket(), descriptor);
            }
        }
        if (checkpointing) {
            buckets.restoreToJobStarts(
                    lineage.oldestFirst(),
                    store,
                    Buckets.ownedBy(getRuntimeContext().getTaskInfo(), routing));
        }
        // Restored shards may hold frozen memtables and rows re-appended by a rollback.
        for (Bucket b : buckets.all()) {
            tasks.startFlush(b);
            ticker.arm(b, now());
            b.ages.restored(b.shard, now());
        }
    }

    private Bucket bucket(int id) {
        Bucket b = buckets.get(id);
        if (b == null) {
            b = buckets.open(id);
            tasks.startFlush(b); // replay may have rebuilt frozen memtables
            b.ages.restored(b.shard, now());
        }
        return b;
    }

    // ------------------------------------------------------------------ rows

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        try {
            write(element);
        } catch (RuntimeException e) {
            throw SinkAllocators.explain(e, allocator, owner);
        }
    }

    private void write(StreamRecord<IN> element) throws Exception {
        RowData row = converter.apply(element.getValue());
        ChangeAction action = ChangeAction.of(row);
        if (action == ChangeAction.SKIP) {
            return;
        }
        int id = routing.bucketOf((Integer) getCurrentKey());
        Bucket b = buckets.get(id);
        if (b == null) {
            staging.stage(row); // the first row of a bucket is checked before its shard is claimed
            b = bucket(id);
        }
        ShardWriter shard = b.shard;
        // Size checks walk the memtables' buffers: every 64th row of each shard is often enough.
        boolean checkSizes = b.budgetCheckDue();
        if (checkSizes) {
            long started = now();
            if (memory.awaitRoom(b, buckets.all())) {
                setCurrentKey(routing.keyOf(b.id)); // a timer that fired in the yield left its own key current
                metrics.backpressured(now() - started);
            }
        }
        int frozenBefore = shard.frozenMemtables();
        shard.write(input.of(row), action == ChangeAction.DELETE);
        metrics.rowIn(action == ChangeAction.DELETE);
        // The clock only for a first row or an unarmed ticker: a read per row was 5% of the thread.
        boolean clockNeeded = b.oldestPendingSince == null || !b.ages.activeStarted() || b.armedTimer == null;
        long now = clockNeeded ? now() : BucketTicker.CLOCK_UNREAD;
        if (b.oldestPendingSince == null) {
            b.oldestPendingSince = now;
        }
        b.ages.rowWritten(now, frozenBefore, shard.frozenMemtables());
        if (checkSizes || shard.frozenMemtables() > 0) {
            if (shard.wantsEarlyAppend()) {
                tasks.startAppend(b);
            }
            if (shard.hasFlushableMemtable()) {
                tasks.startFlush(b);
            }
        }
        ticker.arm(b, now);
    }

    // ------------------------------------------------------------------ ticker

    @Override
    public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) {
        Bucket b = ticker.fired(timer, buckets);
        if (b == null) {
            return;
        }
        long now = now();
        b.shard.recordTick(now);
        tasks.startAppend(b);
        ticker.arm(b, now);
        refreshMetrics();
    }

    @Override
    public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) {}

    private void refreshMetrics() {
        metrics.refresh(buckets.all());
    }

    // ------------------------------------------------------------------ checkpoints

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        tasks.drainAppends(buckets.all());
        tasks.flushAged(buckets.all(), now(), maxAgeMillis); // so this checkpoint publishes them
    }

    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId, long timestamp, CheckpointOptions options, CheckpointStreamFactory storageLocation)
            throws Exception {
        if (options.getCheckpointType() instanceof SavepointType savepoint && savepoint.isSynchronous()) {
            // A stop-with-savepoint: no later checkpoint will publish what sink.memtable.max-age
            // would leave in young memtables, so this one must cover every row as an SSTable.
            // Rows are durable already (prepareSnapshotPreBarrier) and no record arrives after the barrier.
            stoppingAtCheckpoint = checkpointId;
            tasks.writeEverything(buckets.all(), now());
        }
        return super.snapshotState(checkpointId, timestamp, options, storageLocation);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lineage.snapshot();
        BaseVersionRefresh.refreshStale(
                tableContext, buckets.all().stream().map(b -> b.shard).toList());
        ledger.covered(context.getCheckpointId(), descriptors.snapshot(buckets.all()));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        ledger.completed(checkpointId).forEach((id, upTo) -> {
            Bucket b = buckets.get(id);
            if (b != null) {
                tasks.requestPublication(b, upTo);
            }
        });
        if (maintenance != null) {
            maintenance.checkpointCompleted(now());
        }
        if (finished || checkpointId == stoppingAtCheckpoint) {
            // The task closes right after its final checkpoint or a stop-with-savepoint (which
            // closes without finish()): publish before letting it go.
            tasks.awaitPublications(buckets.all());
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        ledger.aborted(checkpointId);
    }

    // ------------------------------------------------------------------ end of input and shutdown

    /**
     * End of input: make every row durable and write every memtable as an SSTable. Without
     * checkpointing they are published here. With it they are published by the final
     * checkpoint that Flink takes after {@code finish()}, so that even the last rows become
     * visible to readers of published data only once a checkpoint covers them.
     */
    @Override
    public void finish() throws Exception {
        tasks.writeEverything(buckets.all(), now());
        finished = true;
        if (!checkpointing) {
            for (Bucket b : buckets.all()) {
                tasks.requestPublication(b, Long.MAX_VALUE);
            }
            tasks.awaitPublications(buckets.all());
        }
        LOG.info("walsink writer {} finished: {}", owner, buckets.summary());
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
            if (maintenance != null) {
                // After the end of input a last run may finish; a failing or cancelled task's is
                // fenced at once. Either way the thread changes nothing in the table once this returns.
                maintenance.close(finished);
            }
        } finally {
            try {
                new ShardResources(owner, io, buckets, staging, store, allocator).release(CLOSE_WAIT_SECONDS);
            } finally {
                try {
                    if (managedMemory != null) {
                        managedMemory.release();
                    }
                } finally {
                    super.close();
                }
            }
        }
    }

    private long now() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }
}
