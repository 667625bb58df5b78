package io.walsink.flink.internal;

import io.walsink.flink.WalSinkOptions;
import io.walsink.flink.convert.ChangeAction;
import io.walsink.flink.convert.RowDataArrowWriter;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardDescriptorSerializer;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.shard.WrittenSsTable;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The keyed operator that owns one shard writer per bucket it receives.
 *
 * <ul>
 *   <li>Keyed state (per bucket) holds the shard's {@link ShardDescriptor}: WAL positions, not
 *       rows, so a checkpoint is a few dozen bytes per shard.
 *   <li>A processing-time timer per shard with pending rows is the WAL flush ticker.
 *   <li>WAL appends, SSTable writes and manifest updates run on an I/O executor, one of each in
 *       flight per shard; completions come back through the mailbox, so shard state is only
 *       touched on the task thread and no object-store call blocks it.
 *   <li>{@link #prepareSnapshotPreBarrier} appends everything pending and yields to the mailbox
 *       until it is durable; {@link #snapshotState} stores descriptors;
 *       {@link #notifyCheckpointComplete} publishes the SSTables the checkpoint covers.
 *   <li>On restore every owned shard is reopened as of its descriptor; with checkpointing on,
 *       shards this job opened that no checkpoint covers are reopened as of the job's start
 *       ({@link JobStartDescriptors}). Without checkpointing nothing is rolled back: a restart
 *       replays the WAL and keeps what is published (at-least-once).
 *   <li>Whether checkpointing is on is read from the running job's configuration, not decided
 *       while the graph was built.
 *   <li>Every mailbox yield may run another bucket's timer, which leaves Flink's current key set
 *       to that bucket: timers are registered under an explicitly set key.
 * </ul>
 */
public final class ShardWriterOperator<IN> extends AbstractStreamOperator<IN>
        implements OneInputStreamOperator<IN, IN>, Triggerable<Integer, VoidNamespace> {
    private static final long serialVersionUID = 1L;
    static final String STATE_NAME = "walsink-shard";
    private static final int STAGING_ROWS = 512;
    /** How long close() waits for I/O in flight before it frees the memory that I/O reads. */
    private static final long CLOSE_WAIT_SECONDS = 60;

    private final WalSinkOptions options;
    private final RowType rowType;
    private final InputConversion<IN> conversion;
    private final transient MailboxExecutor mailbox;

    private transient boolean checkpointing;

    private transient boolean restored;
    private transient ValueState<byte[]> descriptorState;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient BufferAllocator allocator;
    private transient ObjectStore store;
    private transient TableInfo table;
    private transient TableContext tableContext;
    private transient ShardIds shardIds;
    private transient JobStartDescriptors jobStart;
    private transient JobLineage lineage;
    private transient ExecutorService io;
    private transient Function<IN, RowData> converter;
    private transient RowDataArrowWriter arrowWriter;
    private transient VectorSchemaRoot staging;
    private transient int stagingRows;
    private transient Map<Integer, Bucket> buckets;
    private transient TreeMap<Long, Map<Integer, Long>> publicationsByCheckpoint;
    private transient AtomicInteger tasksInFlight;
    private transient ShardWriterMetrics metrics;
    private transient SubtaskMemory memory;
    private transient boolean finished;
    /** A synchronous savepoint (stop-with-savepoint): the task may close right after it completes. */
    private transient long stoppingAtCheckpoint = -1;

    /** Emits nothing: its output only exists because a pre-write topology must return a stream. */
    public ShardWriterOperator(StreamOperatorParameters<IN> parameters, WalSinkOptions options, RowType rowType,
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
        lineage = JobLineage.restore(context.getOperatorStateStore(),
                getRuntimeContext().getJobInfo().getJobId().toHexString());
    }

    @Override
    public void open() throws Exception {
        super.open();
        // The running job's configuration, wherever the interval was set (SQL SET, a config file, the
        // environment): what the graph builder saw may differ.
        checkpointing = CheckpointingOptions.isCheckpointingEnabled(getRuntimeContext().getJobConfiguration());
        descriptorState = getRuntimeContext().getState(
                new ValueStateDescriptor<>(STATE_NAME, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        timers = getInternalTimerService("walsink-ticker", VoidNamespaceSerializer.INSTANCE, this);
        allocator = new RootAllocator();
        store = options.openStore();
        table = LanceTables.open(options.lanceUri(), options.lanceStorageOptions(), true);
        tableContext = new TableContext(store, table, options.lanceStorageOptions(), options.schemaProfile(),
                options.shardWriterConfig(), allocator);
        shardIds = ShardIds.discover(store, table.sharding().specId());
        AtomicInteger threads = new AtomicInteger();
        io = Executors.newFixedThreadPool(options.ioThreads(), r -> {
            Thread t = new Thread(r, "walsink-io-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()
                    + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        converter = conversion.open(rowType);
        arrowWriter = RowDataArrowWriter.create(rowType, table.schema());
        staging = VectorSchemaRoot.create(table.schema(), allocator);
        staging.allocateNew();
        buckets = new HashMap<>();
        publicationsByCheckpoint = new TreeMap<>();
        tasksInFlight = new AtomicInteger();
        metrics = new ShardWriterMetrics(getMetricGroup());
        memory = new SubtaskMemory(options.shardWriterConfig().maxUnflushedBytesPerSubtask());
        jobStart = new JobStartDescriptors(store, lineage.current());
        restoreShards();
        LOG.info("walsink writer {} opened on {} ({} shards restored, checkpoint-aligned publication: {})",
                getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(), options.path(), buckets.size(), checkpointing);
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
            List<Integer> withState = getKeyedStateBackend().<VoidNamespace>getKeys(STATE_NAME, VoidNamespace.INSTANCE)
                    .map(k -> (Integer) k).sorted().toList();
            for (int bucket : withState) {
                setCurrentKey(bucket);
                ShardDescriptor descriptor = ShardDescriptorSerializer.deserialize(descriptorState.value());
                buckets.put(bucket, new Bucket(bucket, ShardOpener.restore(tableContext, descriptor, placement(bucket))));
            }
        }
        if (checkpointing) {
            for (String jobId : lineage.oldestFirst()) { // oldest job first: its record is the earliest state
                for (Map.Entry<Integer, ShardDescriptor> e : new JobStartDescriptors(store, jobId).all().entrySet()) {
                    int bucket = e.getKey();
                    if (owns(bucket) && !buckets.containsKey(bucket)) {
                        buckets.put(bucket,
                                new Bucket(bucket, ShardOpener.restore(tableContext, e.getValue(), placement(bucket))));
                    }
                }
            }
        }
        // Restored shards may hold frozen memtables and rows re-appended by a rollback.
        for (Bucket b : buckets.values()) {
            startFlush(b);
            armTimer(b, now());
        }
    }

    private boolean owns(int bucket) {
        var task = getRuntimeContext().getTaskInfo();
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxParallelism,
                        task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask())
                .contains(KeyGroupRangeAssignment.assignToKeyGroup(bucket, maxParallelism));
    }

    private ShardPlacement placement(int bucket) {
        return table.sharding().sharding().transform() == ShardTransform.BUCKET
                ? ShardPlacement.bucket(table.sharding().specId(), bucket)
                : ShardPlacement.none();
    }

    private Bucket bucket(int id) {
        Bucket b = buckets.get(id);
        if (b == null) {
            ShardWriter shard = ShardOpener.open(tableContext, shardIds.shardOf(id), id, placement(id));
            if (checkpointing) { // what a restart before this job's first checkpoint rolls back to
                jobStart.recordIfAbsent(id, shard.snapshot());
            }
            b = new Bucket(id, shard);
            buckets.put(id, b);
            startFlush(b); // replay may have rebuilt frozen memtables
        }
        return b;
    }

    // ------------------------------------------------------------------ rows

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        RowData row = converter.apply(element.getValue());
        ChangeAction action = ChangeAction.of(row);
        if (action == ChangeAction.SKIP) {
            return;
        }
        int id = (Integer) getCurrentKey();
        // Converting and checking the row first: a bad row must fail before its shard is claimed.
        int index = stagingRows++;
        arrowWriter.write(row, staging, index);
        staging.setRowCount(index + 1);
        tableContext.validator().checkKeysNotNull(staging, index, index + 1);
        Bucket b = bucket(id);
        ShardWriter shard = b.shard;
        // Size checks walk the memtables' buffers: every 64th row of each shard is often enough.
        boolean checkSizes = b.budgetCheckDue();
        if (checkSizes) {
            awaitBudget(b);
        }
        shard.write(staging, index, action == ChangeAction.DELETE);
        if (stagingRows == STAGING_ROWS) {
            staging.clear();
            staging.allocateNew();
            stagingRows = 0;
        }
        metrics.rowIn(action == ChangeAction.DELETE);
        long now = now();
        if (b.oldestPendingSince == null) {
            b.oldestPendingSince = now;
        }
        if (checkSizes || shard.frozenMemtables() > 0) {
            if (shard.wantsEarlyAppend()) {
                startAppend(b);
            }
            if (shard.hasFlushableMemtable()) {
                startFlush(b);
            }
        }
        armTimer(b, now);
    }

    /**
     * Flink backpressure instead of an OutOfMemoryError: yield until SSTable writes bring this
     * shard under its budget and the subtask under its own. For the subtask's budget the largest
     * shard is relieved first, freezing its active memtable if it has no frozen one.
     */
    private void awaitBudget(Bucket b) throws InterruptedException {
        memory.measure(b);
        if (!b.shard.overBudget() && !memory.over()) {
            return;
        }
        long started = now();
        while (true) {
            Bucket target = b.shard.overBudget() ? b : memory.over() ? memory.largest(buckets.values()) : null;
            if (target == null) {
                break;
            }
            if (!target.shard.overBudget() && target.shard.frozenMemtables() == 0) {
                target.shard.freezeActive();
            }
            startAppend(target);
            startFlush(target);
            if (!target.shard.appendInFlight() && !target.shard.flushInFlight()) {
                break; // nothing can shrink the memtables right now; go over budget rather than hang
            }
            mailbox.yield();
            memory.measure(target);
            memory.measure(b);
        }
        setCurrentKey(b.id); // a timer that fired in the yield left its own bucket as the current key
        metrics.backpressured(now() - started);
    }

    // ------------------------------------------------------------------ ticker

    private void armTimer(Bucket b, long now) {
        if (b.armedTimer != null || !b.shard.hasPendingRows()) {
            return;
        }
        long due = b.shard.nextTickAt(now);
        setCurrentKey(b.id); // never trust the current key here: any mailbox yield may have changed it
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, due);
        b.armedTimer = due;
    }

    @Override
    public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) {
        Bucket b = buckets.get(timer.getKey());
        if (b == null) {
            return; // a timer restored from a checkpoint for a shard this attempt has not opened
        }
        if (b.armedTimer != null && b.armedTimer == timer.getTimestamp()) {
            b.armedTimer = null;
        }
        long now = now();
        b.shard.ticked(now);
        startAppend(b);
        armTimer(b, now);
        refreshMetrics();
    }

    private void refreshMetrics() {
        metrics.refresh(buckets.values());
    }

    @Override
    public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) {}

    // ------------------------------------------------------------------ I/O tasks

    private void startAppend(Bucket b) {
        ShardWriter shard = b.shard;
        shard.beginAppend().ifPresent(append -> {
            Long since = b.oldestPendingSince;
            b.oldestPendingSince = null;
            submit(append, () -> {
                shard.completeAppend(append);
                metrics.appended(append.bytes(), since == null ? 0 : now() - since);
                if (shard.hasPendingRows() && b.oldestPendingSince == null) {
                    b.oldestPendingSince = now();
                }
                if (shard.wantsEarlyAppend()) {
                    startAppend(b);
                }
                startFlush(b);
            }, "walsink WAL append");
        });
    }

    private void startFlush(Bucket b) {
        ShardWriter shard = b.shard;
        if (!shard.hasFlushableMemtable()) {
            return;
        }
        shard.beginFlush().ifPresent(flush -> submit(flush, () -> {
            shard.completeFlush(flush);
            metrics.sstableWritten();
            if (!checkpointing) {
                requestPublication(b, Long.MAX_VALUE);
            }
            startFlush(b);
        }, "walsink SSTable write"));
    }

    private void requestPublication(Bucket b, long upToGeneration) {
        b.requestPublication(upToGeneration);
        startPublication(b);
    }

    private void startPublication(Bucket b) {
        ShardWriter shard = b.shard;
        Long upTo = b.publishUpTo;
        if (upTo == null || shard.manifestUpdateInFlight()) {
            return; // an update in flight starts the next one when it completes
        }
        if (shard.unpublished().stream().noneMatch(t -> t.generation() <= upTo)) {
            b.publishUpTo = null;
            return;
        }
        shard.beginPublish(upTo).ifPresent(update -> submit(update, () -> {
            shard.completeManifestUpdate(update);
            metrics.sstablesPublished(update.publishing().size());
            startPublication(b);
        }, "walsink manifest update"));
    }

    /**
     * Runs {@code task} on the I/O executor and {@code completion} on the task thread after it.
     * The completion is what rethrows a poisoned shard's error, failing the task so Flink
     * restarts from the last checkpoint.
     */
    private void submit(Runnable task, org.apache.flink.util.function.ThrowingRunnable<Exception> completion, String name) {
        tasksInFlight.incrementAndGet();
        io.execute(() -> {
            try {
                task.run();
            } finally {
                try {
                    mailbox.execute(() -> {
                        tasksInFlight.decrementAndGet();
                        try {
                            completion.run();
                        } finally {
                            refreshMetrics();
                        }
                    }, name);
                } catch (RuntimeException closed) {
                    // The task is shutting down; the shard's state dies with it.
                    LOG.debug("walsink {} completion dropped: mailbox closed", name, closed);
                }
            }
        });
    }

    private void yieldUntil(BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            if (tasksInFlight.get() == 0) {
                throw new IllegalStateException("waiting for walsink I/O with none in flight");
            }
            mailbox.yield();
        }
    }

    // ------------------------------------------------------------------ checkpoints

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        drainAppends();
    }

    /** Appends every pending row of every shard and waits until all of it is durable. */
    private void drainAppends() throws InterruptedException {
        while (true) {
            boolean busy = false;
            for (Bucket b : buckets.values()) {
                ShardWriter shard = b.shard;
                if (!shard.appendInFlight() && shard.hasPendingRows()) {
                    startAppend(b);
                }
                busy |= shard.appendInFlight() || shard.hasPendingRows();
            }
            if (!busy) {
                return;
            }
            mailbox.yield();
        }
    }

    @Override
    public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
            CheckpointStreamFactory storageLocation) throws Exception {
        if (options.getCheckpointType() instanceof SavepointType savepoint && savepoint.isSynchronous()) {
            stoppingAtCheckpoint = checkpointId;
        }
        return super.snapshotState(checkpointId, timestamp, options, storageLocation);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lineage.snapshot();
        Map<Integer, Long> toPublish = new HashMap<>();
        for (Bucket b : buckets.values()) {
            setCurrentKey(b.id);
            ShardDescriptor descriptor = b.shard.snapshot();
            descriptorState.update(ShardDescriptorSerializer.serialize(descriptor));
            List<WrittenSsTable> unpublished = descriptor.unpublished();
            if (!unpublished.isEmpty()) {
                toPublish.put(b.id, unpublished.get(unpublished.size() - 1).generation());
            }
        }
        publicationsByCheckpoint.put(context.getCheckpointId(), toPublish);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        // A completed checkpoint subsumes earlier ones whose notification never came.
        Iterator<Map.Entry<Long, Map<Integer, Long>>> it =
                publicationsByCheckpoint.headMap(checkpointId, true).entrySet().iterator();
        while (it.hasNext()) {
            for (Map.Entry<Integer, Long> p : it.next().getValue().entrySet()) {
                Bucket b = buckets.get(p.getKey());
                if (b != null) {
                    requestPublication(b, p.getValue());
                }
            }
            it.remove();
        }
        if (finished || checkpointId == stoppingAtCheckpoint) {
            // The task closes right after its final checkpoint or a stop-with-savepoint (which
            // closes without finish()): publish before letting it go.
            awaitPublications();
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        // Its SSTables stay unpublished and are listed again by the next checkpoint.
        publicationsByCheckpoint.remove(checkpointId);
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
        drainAppends();
        for (Bucket b : buckets.values()) {
            b.shard.freezeActive();
        }
        drainAppends();
        for (Bucket b : buckets.values()) {
            startFlush(b);
        }
        yieldUntil(() -> buckets.values().stream()
                .allMatch(b -> b.shard.frozenMemtables() == 0 && !b.shard.flushInFlight()));
        finished = true;
        if (!checkpointing) {
            for (Bucket b : buckets.values()) {
                requestPublication(b, Long.MAX_VALUE);
            }
            awaitPublications();
        }
        LOG.info("walsink writer {} finished: {}", getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(),
                summary());
        super.finish();
    }

    private void awaitPublications() throws InterruptedException {
        yieldUntil(() -> buckets.values().stream()
                .allMatch(b -> b.publishUpTo == null && !b.shard.manifestUpdateInFlight()));
    }

    private String summary() {
        List<String> parts = new ArrayList<>();
        for (Bucket b : new TreeMap<>(buckets).values()) {
            parts.add("bucket " + b.id + ": " + b.shard.stats());
        }
        return String.join("; ", parts);
    }

    @Override
    public void close() throws Exception {
        try {
            // I/O in flight reads the memtables (lance-core writes SSTables straight from their Arrow
            // buffers): let it end before freeing them. Its completions are dropped with the mailbox.
            boolean ioEnded = true;
            if (io != null) {
                io.shutdown();
                ioEnded = io.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
                if (!ioEnded) {
                    io.shutdownNow();
                    LOG.warn("walsink I/O did not end within {} s; its memtables are left to the garbage collector",
                            CLOSE_WAIT_SECONDS);
                }
            }
            if (buckets != null && ioEnded) {
                for (Bucket b : buckets.values()) {
                    b.shard.close();
                }
                buckets.clear();
            }
            if (staging != null) {
                staging.close();
            }
            if (store != null) {
                store.close();
            }
            if (allocator != null) {
                try {
                    allocator.close();
                } catch (IllegalStateException leaked) {
                    // An I/O task cut short by shutdown may still hold buffers; not worth failing close.
                    LOG.warn("walsink writer closed with Arrow memory still allocated: {}", leaked.getMessage());
                }
            }
        } finally {
            super.close();
        }
    }

    private long now() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }
}
