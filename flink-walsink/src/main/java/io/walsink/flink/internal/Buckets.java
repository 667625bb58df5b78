package io.walsink.flink.internal;

import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.flink.internal.state.JobStartDescriptors;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.recovery.MaintenanceExclusion;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.TableContext;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How a writer subtask opens or restores the shard of a bucket it owns, into its {@link ShardDrivers}. */
final class Buckets {
    private static final Logger LOG = LoggerFactory.getLogger(Buckets.class);

    private final TableContext table;
    private final BucketShards shardIds;
    private final JobStartDescriptors jobStart;
    private final MaintenanceExclusion restoreExclusion;
    private final ShardDrivers drivers;
    private final int parallelism;
    private final String restoreThreadName;
    private final String openThreadName;

    /**
     * @param jobStart where to record a shard's state when this job first opens it; null: nowhere
     * @param restoreExclusion held by a restore that rolls back merged rows
     * @param parallelism how many shards are opened or restored at once
     * @param subtask the subtask's index, in the names of the threads that open shards
     */
    Buckets(
            TableContext table,
            BucketShards shardIds,
            JobStartDescriptors jobStart,
            MaintenanceExclusion restoreExclusion,
            ShardDrivers drivers,
            int parallelism,
            int subtask) {
        this.table = table;
        this.drivers = drivers;
        this.shardIds = shardIds;
        this.jobStart = jobStart;
        this.restoreExclusion = oneAtATime(restoreExclusion);
        this.parallelism = parallelism;
        this.restoreThreadName = "walsink-restore-" + subtask;
        this.openThreadName = "walsink-open-" + subtask;
    }

    /** Opens the bucket's shard with plain MemWAL recovery (replay after {@code replay_after}). */
    ShardDriver open(int id) {
        return drivers.add(id, recorded(id, ShardOpener.open(table, shardIds.shardOf(id), id, placement(id))));
    }

    /** As {@link #open} for each of {@code ids}, side by side ({@link ConcurrentOpens}). */
    void openAll(List<Integer> ids) {
        List<Supplier<ShardWriter>> opens = new ArrayList<>(ids.size());
        for (int id : ids) {
            UUID shardId = shardIds.shardOf(id);
            ShardPlacement placement = placement(id);
            opens.add(() -> recorded(id, ShardOpener.open(table, shardId, id, placement)));
        }
        addSideBySide(ids, opens, openThreadName, "Opened");
    }

    /** Runs {@code opens} side by side and adds their shards as {@code ids}, in that order, once all have opened. */
    private void addSideBySide(List<Integer> ids, List<Supplier<ShardWriter>> opens, String threadName, String done) {
        if (ids.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<ShardWriter> writers = ConcurrentOpens.run(opens, parallelism, threadName);
        for (int i = 0; i < ids.size(); i++) {
            drivers.add(ids.get(i), writers.get(i));
        }
        LOG.info(
                "{} {} shards in {} ms, up to {} at once",
                done,
                ids.size(),
                (System.nanoTime() - start) / 1_000_000,
                Math.min(parallelism, ids.size()));
    }

    /** Records what a restart before this job's first checkpoint rolls back to; closes the shard if that fails. */
    private ShardWriter recorded(int id, ShardWriter shard) {
        if (jobStart != null) {
            try {
                jobStart.recordIfAbsent(id, shard.snapshot());
            } catch (RuntimeException e) {
                shard.close();
                throw e;
            }
        }
        return shard;
    }

    /**
     * Reopens the shards this subtask owns: as of the checkpoint for those it covers, as of the
     * job's start for those this job opened without a checkpoint covering them (a restart before
     * the first checkpoint, or a shard first opened after it). Shards this job never opened are
     * left alone, and so is everything without checkpointing ({@code jobsOldestFirst} empty):
     * there is no checkpoint to roll back to, and the promise is at-least-once. The shards reopen
     * side by side ({@link ConcurrentOpens}) and join the drivers in that order once all have.
     */
    void restoreOwned(
            List<ShardDescriptor> checkpointed, List<String> jobsOldestFirst, ObjectStore store, IntPredicate owns) {
        Map<Integer, ShardDescriptor> asOf = new LinkedHashMap<>();
        for (ShardDescriptor descriptor : checkpointed) {
            asOf.put(descriptor.bucket(), descriptor);
        }
        // Buckets the checkpoint does not cover, as of the earliest job-start record (oldest job first).
        for (String job : jobsOldestFirst) {
            new JobStartDescriptors(store, job).all().forEach((id, descriptor) -> {
                if (owns.test(id) && drivers.get(id) == null) {
                    asOf.putIfAbsent(id, descriptor);
                }
            });
        }
        List<Integer> ids = new ArrayList<>(asOf.keySet());
        List<Supplier<ShardWriter>> opens = new ArrayList<>(ids.size());
        for (int id : ids) {
            ShardDescriptor descriptor = shardIds.current(asOf.get(id));
            ShardPlacement placement = placement(id);
            opens.add(() -> ShardRestore.restore(table, descriptor, placement, restoreExclusion));
        }
        addSideBySide(ids, opens, restoreThreadName, "Restored");
    }

    /** Whether a bucket's key group belongs to this subtask (Flink's key-group assignment). */
    static IntPredicate ownedBy(TaskInfo task, BucketRouting routing) {
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                maxParallelism, task.getNumberOfParallelSubtasks(), task.getIndexOfThisSubtask());
        return bucket ->
                range.contains(KeyGroupRangeAssignment.assignToKeyGroup(routing.keyOf(bucket), maxParallelism));
    }

    /**
     * Lets one restore of this subtask at a time hold {@code exclusion}: concurrent restores that
     * each roll back merged rows take it in turn (its lease is one per job, not per restore).
     */
    private static MaintenanceExclusion oneAtATime(MaintenanceExclusion exclusion) {
        ReentrantLock turn = new ReentrantLock();
        return why -> {
            try {
                turn.lockInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting to roll back merged rows: " + why, e);
            }
            try {
                MaintenanceExclusion.Held held = exclusion.hold(why);
                return () -> {
                    try {
                        held.close();
                    } finally {
                        turn.unlock();
                    }
                };
            } catch (RuntimeException | Error e) {
                turn.unlock();
                throw e;
            }
        };
    }

    private ShardPlacement placement(int id) {
        TableInfo info = table.table();
        return info.sharding().sharding().transform() == ShardTransform.BUCKET
                ? ShardPlacement.bucket(info.sharding().specId(), id)
                : ShardPlacement.none();
    }
}
