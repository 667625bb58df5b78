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
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
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
 *   <li>On restore every owned shard is reopened as of its descriptor, and shards in storage for
 *       owned buckets without a descriptor are rolled back to empty.
 * </ul>
 */
public final class ShardWriterOperator<IN> extends AbstractStreamOperator<IN>
        implements OneInputStreamOperator<IN, IN>, Triggerable<Integer, VoidNamespace> {
    private static final long serialVersionUID = 1L;
    static final String STATE_NAME = "walsink-shard";
    static final String JOBS_STATE_NAME = "walsink-jobs";
    private static final int STAGING_ROWS = 512;

    private final WalSinkOptions options;
    private final RowType rowType;
    private final InputConversion<IN> conversion;
    private final boolean checkpointing;
    private final transient MailboxExecutor mailbox;

    private transient boolean restored;
    private transient ValueState<byte[]> descriptorState;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient BufferAllocator allocator;
    private transient ObjectStore store;
    private transient TableInfo table;
    private transient TableContext tableContext;
    private transient ShardIds shardIds;
    private transient JobStartDescriptors jobStart;
    private transient ListState<String> jobIdsState;
    private transient List<String> jobIds;
    private transient ExecutorService io;
    private transient Function<IN, RowData> converter;
    private transient RowDataArrowWriter arrowWriter;
    private transient VectorSchemaRoot staging;
    private transient int stagingRows;
    private transient Map<Integer, ShardWriter> shards;
    private transient Map<Integer, Long> armedTimers;
    private transient Map<Integer, Long> requestedPublication;
    private transient TreeMap<Long, Map<Integer, Long>> publicationsByCheckpoint;
    private transient Map<Integer, Long> oldestPendingSince;
    private transient AtomicInteger tasksInFlight;
    private transient ShardWriterMetrics metrics;
    private transient boolean finished;
    private transient long rowsSinceSizeCheck;

    /** Emits nothing: its output only exists because a pre-write topology must return a stream. */
    public ShardWriterOperator(StreamOperatorParameters<IN> parameters, WalSinkOptions options, RowType rowType,
            InputConversion<IN> conversion, boolean checkpointing) {
        super(parameters);
        this.options = options;
        this.rowType = rowType;
        this.conversion = conversion;
        this.checkpointing = checkpointing;
        this.mailbox = parameters.getMailboxExecutor();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restored = context.isRestored();
        // Every job whose checkpoints led here, oldest first: their job-start records tell what a
        // shard held before any of them touched it.
        jobIdsState = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>(JOBS_STATE_NAME, Types.STRING));
        jobIds = new ArrayList<>();
        for (String id : jobIdsState.get()) {
            if (!jobIds.contains(id)) {
                jobIds.add(id);
            }
        }
        String current = getRuntimeContext().getJobInfo().getJobId().toHexString();
        if (!jobIds.contains(current)) {
            jobIds.add(current);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
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
        shards = new HashMap<>();
        armedTimers = new HashMap<>();
        requestedPublication = new HashMap<>();
        publicationsByCheckpoint = new TreeMap<>();
        oldestPendingSince = new HashMap<>();
        tasksInFlight = new AtomicInteger();
        metrics = new ShardWriterMetrics(getMetricGroup());
        jobStart = new JobStartDescriptors(store, jobIds.get(jobIds.size() - 1));
        restoreShards();
        LOG.info("walsink writer {} opened on {} ({} shards restored, checkpoint-aligned publication: {})",
                getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(), options.path(), shards.size(), checkpointing);
    }

    /**
     * Reopens the shards this subtask owns: as of the checkpoint for those it covers, as of the
     * job's start for those this job opened without a checkpoint covering them (a restart before
     * the first checkpoint, or a shard first opened after it). Shards this job never opened are
     * left alone.
     */
    private void restoreShards() throws Exception {
        if (restored) {
            List<Integer> withState = getKeyedStateBackend().<VoidNamespace>getKeys(STATE_NAME, VoidNamespace.INSTANCE)
                    .map(k -> (Integer) k).sorted().toList();
            for (int bucket : withState) {
                setCurrentKey(bucket);
                ShardDescriptor descriptor = ShardDescriptorSerializer.deserialize(descriptorState.value());
                shards.put(bucket, ShardOpener.restore(tableContext, descriptor, placement(bucket)));
            }
        }
        for (String jobId : jobIds) { // oldest job first: its record is the earliest state
            for (Map.Entry<Integer, ShardDescriptor> e : new JobStartDescriptors(store, jobId).all().entrySet()) {
                int bucket = e.getKey();
                if (owns(bucket) && !shards.containsKey(bucket)) {
                    shards.put(bucket, ShardOpener.restore(tableContext, e.getValue(), placement(bucket)));
                }
            }
        }
        // Restored shards may hold frozen memtables and rows re-appended by a rollback.
        for (Map.Entry<Integer, ShardWriter> e : shards.entrySet()) {
            setCurrentKey(e.getKey());
            startFlush(e.getKey(), e.getValue());
            armTimer(e.getKey(), e.getValue(), now());
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

    private ShardWriter shardFor(int bucket) {
        ShardWriter shard = shards.get(bucket);
        if (shard == null) {
            shard = ShardOpener.open(tableContext, shardIds.shardOf(bucket), bucket, placement(bucket));
            jobStart.recordIfAbsent(bucket, shard.snapshot());
            shards.put(bucket, shard);
            startFlush(bucket, shard); // replay may have rebuilt frozen memtables
        }
        return shard;
    }

    // ------------------------------------------------------------------ rows

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        RowData row = converter.apply(element.getValue());
        ChangeAction action = ChangeAction.of(row);
        if (action == ChangeAction.SKIP) {
            return;
        }
        int bucket = (Integer) getCurrentKey();
        // Converting and checking the row first: a bad row must fail before its shard is claimed.
        int index = stagingRows++;
        arrowWriter.write(row, staging, index);
        staging.setRowCount(index + 1);
        tableContext.validator().checkKeysNotNull(staging, index, index + 1);
        ShardWriter shard = shardFor(bucket);
        // Size checks walk the memtables' buffers; every 64th row is often enough for budgets of MBs.
        boolean checkSizes = (++rowsSinceSizeCheck & 63) == 0;
        if (checkSizes) {
            awaitBudget(bucket, shard);
        }
        shard.write(staging, index, action == ChangeAction.DELETE);
        if (stagingRows == STAGING_ROWS) {
            staging.clear();
            staging.allocateNew();
            stagingRows = 0;
        }
        metrics.rowIn(action == ChangeAction.DELETE);
        long now = now();
        oldestPendingSince.putIfAbsent(bucket, now);
        if (checkSizes || shard.frozenMemtables() > 0) {
            if (shard.wantsEarlyAppend()) {
                startAppend(bucket, shard);
            }
            if (shard.hasFlushableMemtable()) {
                startFlush(bucket, shard);
            }
        }
        armTimer(bucket, shard, now);
    }

    /** Flink backpressure instead of an OutOfMemoryError: yield until SSTable writes catch up. */
    private void awaitBudget(int bucket, ShardWriter shard) throws InterruptedException {
        if (!shard.overBudget()) {
            return;
        }
        long started = now();
        while (shard.overBudget()) {
            startAppend(bucket, shard);
            startFlush(bucket, shard);
            if (!shard.appendInFlight() && !shard.flushInFlight()) {
                break; // nothing can shrink the memtables right now; go over budget rather than hang
            }
            mailbox.yield();
        }
        metrics.backpressured(now() - started);
    }

    // ------------------------------------------------------------------ ticker

    private void armTimer(int bucket, ShardWriter shard, long now) {
        if (armedTimers.containsKey(bucket) || !shard.hasPendingRows()) {
            return;
        }
        long due = shard.nextTickAt(now);
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, due);
        armedTimers.put(bucket, due);
    }

    @Override
    public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) {
        int bucket = timer.getKey();
        Long armed = armedTimers.get(bucket);
        if (armed != null && armed == timer.getTimestamp()) {
            armedTimers.remove(bucket);
        }
        ShardWriter shard = shards.get(bucket);
        if (shard == null) {
            return; // a timer restored from a checkpoint for a shard this attempt has not opened
        }
        long now = now();
        shard.ticked(now);
        startAppend(bucket, shard);
        armTimer(bucket, shard, now);
        metrics.refresh(shards);
    }

    @Override
    public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) {}

    // ------------------------------------------------------------------ I/O tasks

    private void startAppend(int bucket, ShardWriter shard) {
        shard.beginAppend().ifPresent(append -> {
            Long since = oldestPendingSince.remove(bucket);
            submit(append, () -> {
                shard.completeAppend(append);
                metrics.appended(append.bytes(), since == null ? 0 : now() - since);
                if (shard.hasPendingRows()) {
                    oldestPendingSince.putIfAbsent(bucket, now());
                }
                if (shard.wantsEarlyAppend()) {
                    startAppend(bucket, shard);
                }
                startFlush(bucket, shard);
            }, "walsink WAL append");
        });
    }

    private void startFlush(int bucket, ShardWriter shard) {
        if (!shard.hasFlushableMemtable()) {
            return;
        }
        shard.beginFlush().ifPresent(flush -> submit(flush, () -> {
            shard.completeFlush(flush);
            metrics.sstableWritten();
            if (!checkpointing) {
                requestPublication(bucket, shard, Long.MAX_VALUE);
            }
            startFlush(bucket, shard);
        }, "walsink SSTable write"));
    }

    private void requestPublication(int bucket, ShardWriter shard, long upToGeneration) {
        requestedPublication.merge(bucket, upToGeneration, Math::max);
        startPublication(bucket, shard);
    }

    private void startPublication(int bucket, ShardWriter shard) {
        Long upTo = requestedPublication.get(bucket);
        if (upTo == null || shard.manifestUpdateInFlight()) {
            return; // an update in flight starts the next one when it completes
        }
        if (shard.unpublished().stream().noneMatch(t -> t.generation() <= upTo)) {
            requestedPublication.remove(bucket);
            return;
        }
        shard.beginPublish(upTo).ifPresent(update -> submit(update, () -> {
            shard.completeManifestUpdate(update);
            metrics.sstablesPublished(update.publishing().size());
            startPublication(bucket, shard);
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
                            metrics.refresh(shards);
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
            for (Map.Entry<Integer, ShardWriter> e : shards.entrySet()) {
                ShardWriter shard = e.getValue();
                if (!shard.appendInFlight() && shard.hasPendingRows()) {
                    startAppend(e.getKey(), shard);
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
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        jobIdsState.update(jobIds);
        Map<Integer, Long> toPublish = new HashMap<>();
        for (Map.Entry<Integer, ShardWriter> e : shards.entrySet()) {
            setCurrentKey(e.getKey());
            ShardDescriptor descriptor = e.getValue().snapshot();
            descriptorState.update(ShardDescriptorSerializer.serialize(descriptor));
            List<WrittenSsTable> unpublished = descriptor.unpublished();
            if (!unpublished.isEmpty()) {
                toPublish.put(e.getKey(), unpublished.get(unpublished.size() - 1).generation());
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
                ShardWriter shard = shards.get(p.getKey());
                if (shard != null) {
                    requestPublication(p.getKey(), shard, p.getValue());
                }
            }
            it.remove();
        }
        if (finished) {
            // The task closes right after its final checkpoint: publish before letting it go.
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
        for (ShardWriter shard : shards.values()) {
            shard.freezeActive();
        }
        drainAppends();
        for (Map.Entry<Integer, ShardWriter> e : shards.entrySet()) {
            startFlush(e.getKey(), e.getValue());
        }
        yieldUntil(() -> shards.values().stream().allMatch(s -> s.frozenMemtables() == 0 && !s.flushInFlight()));
        finished = true;
        if (!checkpointing) {
            for (Map.Entry<Integer, ShardWriter> e : shards.entrySet()) {
                requestPublication(e.getKey(), e.getValue(), Long.MAX_VALUE);
            }
            awaitPublications();
        }
        LOG.info("walsink writer {} finished: {}", getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks(),
                summary());
        super.finish();
    }

    private void awaitPublications() throws InterruptedException {
        yieldUntil(() -> requestedPublication.isEmpty()
                && shards.values().stream().noneMatch(ShardWriter::manifestUpdateInFlight));
    }

    private String summary() {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<Integer, ShardWriter> e : new TreeMap<>(shards).entrySet()) {
            parts.add("bucket " + e.getKey() + ": " + e.getValue().stats());
        }
        return String.join("; ", parts);
    }

    @Override
    public void close() throws Exception {
        try {
            if (io != null) {
                io.shutdownNow();
                if (!io.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.warn("walsink I/O threads did not stop within 30 s");
                }
            }
            if (shards != null) {
                for (ShardWriter shard : shards.values()) {
                    shard.close();
                }
                shards.clear();
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
