package io.walsink.flink.internal;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.MaintenanceExclusion;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/** The buckets a writer subtask has open, and how each is opened or restored. */
final class Buckets {
    private final TableContext table;
    private final BucketShards shardIds;
    private final JobStartDescriptors jobStart;
    private final MaintenanceExclusion restoreExclusion;
    private final Map<Integer, Bucket> open = new HashMap<>();

    /**
     * @param jobStart where to record a shard's state when this job first opens it; null: nowhere
     * @param restoreExclusion held by a restore that rolls back merged rows
     */
    Buckets(
            TableContext table,
            BucketShards shardIds,
            JobStartDescriptors jobStart,
            MaintenanceExclusion restoreExclusion) {
        this.table = table;
        this.shardIds = shardIds;
        this.jobStart = jobStart;
        this.restoreExclusion = restoreExclusion;
    }

    Bucket get(int id) {
        return open.get(id);
    }

    Collection<Bucket> all() {
        return open.values();
    }

    int size() {
        return open.size();
    }

    /** Opens the bucket's shard with plain MemWAL recovery (replay after {@code replay_after}). */
    Bucket open(int id) {
        ShardWriter shard = ShardOpener.open(table, shardIds.shardOf(id), id, placement(id));
        if (jobStart != null) { // what a restart before this job's first checkpoint rolls back to
            jobStart.recordIfAbsent(id, shard.snapshot());
        }
        return add(id, shard);
    }

    /** Opens the bucket's shard as of {@code descriptor}, rolling back anything written after it. */
    Bucket restore(int id, ShardDescriptor descriptor) {
        return add(id, ShardOpener.restore(table, shardIds.current(descriptor), placement(id), restoreExclusion));
    }

    /**
     * Restores every owned bucket not yet open that one of {@code jobs} opened, as of the earliest
     * job-start record among them (oldest job first).
     */
    void restoreToJobStarts(List<String> jobs, ObjectStore store, IntPredicate owns) {
        for (String job : jobs) {
            new JobStartDescriptors(store, job).all().forEach((id, descriptor) -> {
                if (owns.test(id) && !open.containsKey(id)) {
                    restore(id, descriptor);
                }
            });
        }
    }

    /** Whether a bucket's key group belongs to this subtask (Flink's key-group assignment). */
    static IntPredicate ownedBy(TaskInfo task, BucketRouting routing) {
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                maxParallelism, task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask());
        return bucket ->
                range.contains(KeyGroupRangeAssignment.assignToKeyGroup(routing.keyOf(bucket), maxParallelism));
    }

    private Bucket add(int id, ShardWriter shard) {
        Bucket b = new Bucket(id, shard);
        open.put(id, b);
        return b;
    }

    private ShardPlacement placement(int id) {
        TableInfo info = table.table();
        return info.sharding().sharding().transform() == ShardTransform.BUCKET
                ? ShardPlacement.bucket(info.sharding().specId(), id)
                : ShardPlacement.none();
    }

    /** Frees every shard's memory; call only when no I/O can still read it. */
    void closeAll() {
        open.values().forEach(b -> b.shard.close());
        open.clear();
    }

    String summary() {
        List<String> parts = new ArrayList<>();
        for (Bucket b : new TreeMap<>(open).values()) {
            parts.add("bucket " + b.id + ": " + b.shard.stats());
        }
        return String.join("; ", parts);
    }
}
