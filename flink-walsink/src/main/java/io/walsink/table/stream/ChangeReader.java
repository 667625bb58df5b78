package io.walsink.table.stream;

import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.SsTable;
import io.walsink.read.scan.GenerationLog;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.table.scan.SplitRows;
import io.walsink.table.scan.TaskThreadSourceReader;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;

/**
 * Emits its splits' snapshot rows, then follows their shards: every discovery interval it walks
 * the manifests published since its cursors (and looks for shards that appeared), then emits the
 * generations found, one row per poll so that checkpoints pass between rows, and the shards of a
 * split take turns a generation at a time. A checkpoint records each split's remaining snapshot
 * rows and cursors; a generation is read whole when it starts and its storage order is fixed,
 * so a restored cursor's row count resumes at exactly the next row.
 *
 * <p>I/O runs on the task thread inside {@code pollNext}, as the bounded scan's does: snapshot
 * rows are streamed a base batch at a time, a generation is one memtable's worth of rows.
 */
final class ChangeReader extends TaskThreadSourceReader<RowData, ChangeSplit> {
    private final ChangeStream stream;
    private final List<Active> splits = new ArrayList<>();
    private final BufferAllocator allocator = new RootAllocator();
    private final ObjectStore store;
    private final GenerationLog log;
    private final MetricGroup metrics;
    private final Set<UUID> gauged = new HashSet<>();
    /** Shards whose bucket is another reader's split, looked at once. */
    private final Set<UUID> othersShards = new HashSet<>();
    /** Null without a consumer id. */
    private final ConsumerProgress progress;

    private final PendingGenerations pending;

    private boolean discoverNow = true;
    private long nextDiscovery; // System.nanoTime()
    private int turn;

    ChangeReader(SourceReaderContext context, ChangeStream stream) {
        this(context, stream, Clock.systemUTC());
    }

    /** @param clock when consumer records are written (tests pass a settable one) */
    ChangeReader(SourceReaderContext context, ChangeStream stream, Clock clock) {
        super(context);
        this.stream = stream;
        this.store = ObjectStores.open(stream.scan().path(), stream.scan().s3());
        this.log = stream.log(store, allocator);
        this.progress = stream.consumerId() == null ? null : new ConsumerProgress(store, stream.consumerId(), clock);
        this.metrics = context.metricGroup();
        this.pending = new PendingGenerations(clock);
        metrics.gauge("generationsBehind", this::generationsBehind);
        metrics.gauge("oldestPendingGenerationMs", pending::oldestMillis);
    }

    /** A split being read: where its snapshot rows and its shards are. */
    private static final class Active {
        final ChangeSplit split;
        SplitRows snapshotRows; // opened when the split starts emitting them
        final List<ShardCursor> cursors;
        int loadedShard = -1; // index of the cursor whose first queued generation is in `rows`
        List<RowData> rows;

        Active(ChangeSplit split) {
            this.split = split;
            this.cursors = new ArrayList<>(split.shards());
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> output) {
        try {
            return poll(output);
        } catch (GarbageCollectedException e) {
            throw progress == null ? e : ConsumerBehind.of(e, store, stream.consumerId(), splits());
        }
    }

    private List<String> splits() {
        return splits.stream().map(a -> a.split.splitId()).toList();
    }

    private InputStatus poll(ReaderOutput<RowData> output) {
        if (splits.isEmpty()) {
            return noMoreSplits() ? InputStatus.END_OF_INPUT : nothingAvailable(0);
        }
        for (Active a : splits) {
            if (a.split.snapshot() != null && emitSnapshotRow(a, output)) {
                return InputStatus.MORE_AVAILABLE;
            }
        }
        if (emitChange(output)) {
            return InputStatus.MORE_AVAILABLE;
        }
        long now = System.nanoTime();
        if (discoverNow || now - nextDiscovery >= 0) {
            discoverNow = false;
            nextDiscovery = now + stream.discoveryInterval().toNanos();
            if (discover()) {
                return InputStatus.MORE_AVAILABLE;
            }
        }
        return nothingAvailable(Math.max(1, nextDiscovery - System.nanoTime())); // or until splits come
    }

    /** Whether a snapshot row was emitted; clears the split's snapshot part once all are. */
    private boolean emitSnapshotRow(Active a, ReaderOutput<RowData> output) {
        if (a.snapshotRows == null) {
            a.snapshotRows = stream.scan().open(a.split.snapshot());
        }
        RowData row = a.snapshotRows.next();
        if (row != null) {
            output.collect(row);
            return true;
        }
        a.snapshotRows.close();
        splits.set(splits.indexOf(a), withoutSnapshot(a));
        return false;
    }

    private static Active withoutSnapshot(Active a) {
        return new Active(new ChangeSplit(a.split.splitId(), null, a.split.bucket(), a.cursors));
    }

    /** Emits the next row of a loaded generation, or loads the next queued one; false if none is queued. */
    private boolean emitChange(ReaderOutput<RowData> output) {
        for (Active a : splits) {
            if (a.rows != null) {
                ShardCursor cursor = a.cursors.get(a.loadedShard);
                int next = (int) cursor.rowsEmitted();
                if (next < a.rows.size()) {
                    output.collect(a.rows.get(next));
                    a.cursors.set(a.loadedShard, cursor.emitted(next + 1));
                } else {
                    pending.emitted(cursor.shardId(), cursor.next().generation());
                    a.cursors.set(a.loadedShard, cursor.generationDone());
                    a.rows = null;
                    a.loadedShard = -1;
                }
                return true;
            }
        }
        int shards = splits.stream().mapToInt(a -> a.cursors.size()).sum();
        for (int i = 0; i < shards; i++) {
            int index = (turn + i) % shards;
            for (Active a : splits) {
                if (index < a.cursors.size()) {
                    SsTable generation = a.cursors.get(index).next();
                    if (generation != null) {
                        a.rows = log.read(
                                a.cursors.get(index).shardId(),
                                generation,
                                new ChangeRowExtractor(stream.scan().columns(), stream.keyed()));
                        a.loadedShard = index;
                        turn = index + 1;
                        return true;
                    }
                    break;
                }
                index -= a.cursors.size();
            }
        }
        return false;
    }

    /** Walks every cursor's manifests and adds shards that appeared; whether anything new was found. */
    private boolean discover() {
        Set<UUID> known = new HashSet<>();
        splits.forEach(a -> a.cursors.forEach(c -> known.add(c.shardId())));
        for (UUID shard : log.shards()) {
            if (!known.contains(shard) && !othersShards.contains(shard)) {
                Active owner = ownerOf(shard, log.bucketOf(shard));
                if (owner == null) {
                    othersShards.add(shard); // another reader's bucket: never walked here
                } else {
                    owner.cursors.add(ShardCursor.fromStart(shard));
                    gauge(shard);
                }
            }
        }
        boolean found = false;
        for (Active a : splits) {
            for (int i = 0; i < a.cursors.size(); i++) {
                ShardCursor c = a.cursors.get(i);
                GenerationLog.Publications p = log.since(c.shardId(), c.manifestVersion(), c.emittedThrough());
                ShardCursor next = c.found(p.manifestVersion(), p.generations());
                a.cursors.set(i, next);
                pending.found(next.shardId(), next.queued());
                found |= next.next() != null;
            }
        }
        return found;
    }

    /**
     * The split a newly found shard joins: the whole-table split, or the split of the bucket its
     * manifest names. Null when another reader's split owns that bucket.
     */
    private Active ownerOf(UUID shard, int bucket) {
        for (Active a : splits) {
            if (a.split.wholeTable() || a.split.bucket() == bucket) {
                return a;
            }
        }
        if (bucket == PinnedShard.NO_BUCKET) {
            throw new IllegalStateException(
                    "shard " + shard + " of " + stream.scan().path() + " appeared after the"
                            + " continuous read started and names no bucket, so it could hold keys of any bucket this read"
                            + " follows bucket by bucket; start the read again (it then reads the table as one split)");
        }
        return null;
    }

    private void gauge(UUID shard) {
        if (gauged.add(shard)) {
            metrics.addGroup("shard", shard.toString()).gauge("generationsBehind", () -> behind(shard));
        }
    }

    private long behind(UUID shard) {
        return cursors().stream()
                .filter(c -> c.shardId().equals(shard))
                .mapToLong(c -> c.queued().size())
                .sum();
    }

    /** Generations found in manifests and not yet emitted whole, over the reader's shards. */
    private long generationsBehind() {
        return cursors().stream().mapToLong(c -> c.queued().size()).sum();
    }

    private List<ShardCursor> cursors() {
        List<ShardCursor> all = new ArrayList<>();
        splits.forEach(a -> all.addAll(a.cursors));
        return all;
    }

    @Override
    public List<ChangeSplit> snapshotState(long checkpointId) {
        List<ChangeSplit> state = new ArrayList<>();
        for (Active a : splits) {
            ChangeSplit s = a.split;
            state.add(new ChangeSplit(
                    s.splitId(),
                    s.snapshot() == null || a.snapshotRows == null ? s.snapshot() : a.snapshotRows.state(),
                    s.bucket(),
                    a.cursors));
        }
        if (progress != null) {
            progress.checkpointTaken(checkpointId, state);
        }
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (progress != null) {
            progress.checkpointCompleted(checkpointId);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (progress != null) {
            progress.checkpointAborted(checkpointId);
        }
    }

    @Override
    public void addSplits(List<ChangeSplit> added) {
        for (ChangeSplit split : added) {
            splits.add(new Active(split));
            split.shards().forEach(c -> {
                gauge(c.shardId());
                pending.found(c.shardId(), c.queued());
            });
        }
        // Unlike a scan's reader, this one never finishes a split: it asks for more until there are none.
        context.sendSplitRequest();
        discoverNow = true;
        wake();
    }

    @Override
    public void close() {
        for (Active a : splits) {
            if (a.snapshotRows != null && a.split.snapshot() != null) {
                a.snapshotRows.close();
            }
        }
        store.close();
        allocator.close();
    }
}
