package io.walsink.flink.internal;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.MaintenanceExclusion;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardDriver;
import io.walsink.shard.ShardDrivers;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/** How a writer subtask opens or restores the shard of a bucket it owns, into its {@link ShardDrivers}. */
final class Buckets {
    private final TableContext table;
    private final BucketShards shardIds;
    private final JobStartDescriptors jobStart;
    private final MaintenanceExclusion restoreExclusion;
    private final ShardDrivers drivers;

    /**
     * @param jobStart where to record a shard's state when this job first opens it; null: nowhere
     * @param restoreExclusion held by a restore that rolls back merged rows
     */
    Buckets(
            TableContext table,
            BucketShards shardIds,
            JobStartDescriptors jobStart,
            MaintenanceExclusion restoreExclusion,
            ShardDrivers drivers) {
        this.table = table;
        this.drivers = drivers;
        this.shardIds = shardIds;
        this.jobStart = jobStart;
        this.restoreExclusion = restoreExclusion;
    }

    /** Opens the bucket's shard with plain MemWAL recovery (replay after {@code replay_after}). */
    ShardDriver open(int id) {
        ShardWriter shard = ShardOpener.open(table, shardIds.shardOf(id), id, placement(id));
        if (jobStart != null) { // what a restart before this job's first checkpoint rolls back to
            jobStart.recordIfAbsent(id, shard.snapshot());
        }
        return drivers.add(id, shard);
    }

    /** Opens the bucket's shard as of {@code descriptor}, rolling back anything written after it. */
    ShardDriver restore(int id, ShardDescriptor descriptor) {
        return drivers.add(
                id, ShardOpener.restore(table, shardIds.current(descriptor), placement(id), restoreExclusion));
    }

    /**
     * Reopens the shards this subtask owns: as of the checkpoint for those it covers, as of the
     * job's start for those this job opened without a checkpoint covering them (a restart before
     * the first checkpoint, or a shard first opened after it). Shards this job never opened are
     * left alone, and so is everything without checkpointing ({@code jobsOldestFirst} empty):
     * there is no checkpoint to roll back to, and the promise is at-least-once.
     */
    void restoreOwned(
            List<ShardDescriptor> checkpointed, List<String> jobsOldestFirst, ObjectStore store, IntPredicate owns) {
        for (ShardDescriptor descriptor : checkpointed) {
            restore(descriptor.bucket(), descriptor);
        }
        restoreToJobStarts(jobsOldestFirst, store, owns);
    }

    /**
     * Restores every owned bucket not yet open that one of {@code jobs} opened, as of the earliest
     * job-start record among them (oldest job first).
     */
    private void restoreToJobStarts(List<String> jobs, ObjectStore store, IntPredicate owns) {
        for (String job : jobs) {
            new JobStartDescriptors(store, job).all().forEach((id, descriptor) -> {
                if (owns.test(id) && drivers.get(id) == null) {
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

    private ShardPlacement placement(int id) {
        TableInfo info = table.table();
        return info.sharding().sharding().transform() == ShardTransform.BUCKET
                ? ShardPlacement.bucket(info.sharding().specId(), id)
                : ShardPlacement.none();
    }
}
