package io.walsink.maintenance.rollback;

import io.walsink.annotation.Internal;
import io.walsink.format.RollbackRecords;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.RollbackResult;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.MergeJournal;
import io.walsink.recovery.ShardResets;
import io.walsink.shard.SkippedGenerations;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.Tag;
import org.lance.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls a table back to a base table version: docs/architecture.md, "The restore protocol",
 * "Rolling the table back". Every refusal comes before the first write; after the intent is
 * durable, running it again finishes it, whatever point the earlier run reached.
 */
@Internal
public final class RollbackRun {
    private static final Logger LOG = LoggerFactory.getLogger(RollbackRun.class);
    /** Passes of the check that every shard is still ours before giving up on writers that keep claiming. */
    private static final int CLAIM_PASSES = 8;

    /** Where tests stop a rollback: after the intent, after each claim, after the Lance restore, before the record. */
    public enum Point {
        INTENT,
        CLAIM,
        LANCE_RESTORE,
        BEFORE_RECORD
    }

    /** Called after each point; a test throws from it to crash the run there. */
    public interface Hook {
        Hook NONE = (point, shard) -> {};

        void after(Point point, UUID shard);
    }

    private final TableLocation location;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final LeaseClaimant claimant;
    private final LongSupplier clock;
    private final Hook hook;

    public RollbackRun(
            TableLocation location, BufferAllocator allocator, LeaseClaimant claimant, LongSupplier clock, Hook hook) {
        this.location = location;
        this.store = location.store();
        this.allocator = allocator;
        this.claimant = claimant;
        this.clock = clock;
        this.hook = hook;
    }

    /** The claimant rollbacks take the maintenance lease as: a rollback takes back an interrupted one's entry. */
    public static LeaseClaimant claimant(String who) {
        return LeaseClaimant.named("rollback " + who, "walsink-rollback", List.of());
    }

    /** The version tag {@code tag} names; fails naming the tags there are. */
    public long versionOf(String tag) {
        try (Dataset base = location.openBase(allocator)) {
            Map<String, Long> tags = new TreeMap<>();
            for (Tag t : base.tags().list()) {
                tags.put(t.getName(), t.getVersion());
            }
            Long version = tags.get(tag);
            if (version == null) {
                throw new IllegalArgumentException("Table " + location.uri() + " has no tag '" + tag + "'; its tags: "
                        + (tags.isEmpty() ? "none" : tags.keySet()));
            }
            return version;
        }
    }

    /**
     * Rolls the table back to base version {@code target}.
     *
     * @param force roll back even though shards hold rows only in their WAL (a running writer's,
     *     or one stopped without a savepoint): those rows are dropped
     * @throws IllegalArgumentException before anything is written, if the version does not exist,
     *     a shard holds rows only in its WAL and {@code force} is false, or another rollback to
     *     another version is unfinished
     * @throws io.walsink.recovery.CompactionLeaseException before anything is written, if a
     *     compaction, a collection or a restore holds the maintenance lease
     */
    public RollbackResult run(long target, boolean force) {
        TableInfo table = location.describe(true);
        RollbackRecords records = new RollbackRecords(store);
        ShardFence fence = new ShardFence(store, table, allocator);
        Optional<RollbackRecords.Intent> unfinished = records.readIntent();
        if (unfinished.isEmpty()
                || unfinished.get().target() != target
                || unfinished.get().newBase() < 0) {
            requireVersion(target); // once restored, the cleanup may remove the target: the intent has it
        }
        requireSameTarget(unfinished, target);
        Map<UUID, ShardManifest> shards = new TreeMap<>();
        for (UUID shard : TableLayout.shards(store)) {
            fence.latest(shard).ifPresent(m -> shards.put(shard, m));
        }
        if (unfinished.isEmpty() && !force) {
            for (ShardManifest m : shards.values()) {
                OptionalLong rows = fence.rowsPastReplay(m);
                if (rows.isPresent()) {
                    throw new IllegalArgumentException("Not rolling back " + location.uri() + ": shard " + m.shardId()
                            + " holds rows in WAL entry " + rows.getAsLong() + ", past its manifest's replay position "
                            + m.replayAfterWalEntryPosition() + " and in no published SSTable: a job is writing it,"
                            + " or stopped without a savepoint. Stop the job with a savepoint first, or force the"
                            + " rollback to drop those rows");
                }
            }
        }
        try (CompactionLease lease =
                CompactionLease.acquire(store, location.uri(), claimant, CompactionLease.DEFAULT_DURATION, clock)) {
            unfinished = records.readIntent();
            requireSameTarget(unfinished, target);
            boolean resumed = unfinished.isPresent();
            RollbackRecords.Intent intent;
            if (!resumed) {
                Map<UUID, Long> seen = new TreeMap<>();
                shards.forEach((shard, m) -> seen.put(shard, m.writerEpoch()));
                intent = new RollbackRecords.Intent(target, clock.getAsLong(), seen, -1);
                records.writeIntent(intent);
                LOG.info("Rolling back {} to version {}: {} shards", location.uri(), target, shards.size());
            } else {
                intent = unfinished.get();
                LOG.info("Finishing the rollback of {} to version {} begun earlier", location.uri(), target);
            }
            hook.after(Point.INTENT, null);
            Map<UUID, Long> fenced = new TreeMap<>();
            Map<UUID, Integer> dropped = new TreeMap<>();
            for (UUID shard : TableLayout.shards(store)) {
                Optional<ShardManifest> m = fence.latest(shard);
                if (m.isPresent()) {
                    lease.renew();
                    dropped.put(shard, m.get().sstables().size());
                    // A shard another writer claims meanwhile is claimed again below.
                    fenced.put(shard, fence.tryClaim(m.get()).orElse(-1));
                    hook.after(Point.CLAIM, shard);
                }
            }
            lease.renew();
            long newBase = intent.newBase();
            if (newBase < 0) {
                // Recorded, so that a re-run does not restore again (or need the target, which the
                // cleanup may remove once it is no longer the latest).
                newBase = restoreBase(target);
                records.writeIntent(intent.restoredAs(newBase));
            }
            hook.after(Point.LANCE_RESTORE, null);
            reclaimWhereOthersClaimed(fence, fenced, lease);
            for (UUID shard : fenced.keySet()) {
                forgetMerges(shard);
            }
            hook.after(Point.BEFORE_RECORD, null);
            lease.renew();
            records.writeDone(new RollbackRecords.Done(target, newBase, clock.getAsLong(), fenced));
            records.removeIntent();
            RollbackResult result = new RollbackResult(target, newBase, fenced, dropped, resumed);
            LOG.info("{}", String.join("; ", result.describe(location.uri())));
            return result;
        }
    }

    /**
     * Claims again every shard a writer claimed since our claim: a restore or an opening writer that
     * passed its check before the intent. Once a pass finds every shard ours, every later claim sees
     * the intent or the record.
     */
    private void reclaimWhereOthersClaimed(ShardFence fence, Map<UUID, Long> fenced, CompactionLease lease) {
        for (int pass = 1; pass <= CLAIM_PASSES; pass++) {
            boolean changed = false;
            for (UUID shard : TableLayout.shards(store)) {
                Optional<ShardManifest> m = fence.latest(shard);
                if (m.isEmpty() || m.get().writerEpoch() == fenced.getOrDefault(shard, -1L)) {
                    continue;
                }
                lease.renew();
                LOG.warn(
                        "Rollback of {}: shard {} was claimed with epoch {} meanwhile; claiming it again",
                        location.uri(),
                        shard,
                        m.get().writerEpoch());
                OptionalLong epoch = fence.tryClaim(m.get());
                epoch.ifPresent(e -> fenced.put(shard, e));
                changed = true;
            }
            if (!changed) {
                return;
            }
        }
        throw new IllegalStateException("Rollback of " + location.uri() + " not finished: writers keep claiming its"
                + " shards; stop the jobs writing it and run the rollback again");
    }

    /**
     * The merge journal's records, an unfinished restore's intent and the passed-over numbers of
     * the shard are about generations no manifest lists any more and rows the base table no longer
     * holds; left, they would make restores of checkpoints taken after the rollback reset rows or
     * copy SSTables for nothing.
     */
    private void forgetMerges(UUID shard) {
        MergeJournal journal = new MergeJournal(store);
        for (MergeJournal.Entry e : journal.entries(shard)) {
            journal.finished(shard, e.generation());
        }
        ShardResets resets = new ShardResets(store);
        if (resets.read(shard).isPresent()) {
            resets.finish(shard);
        }
        new SkippedGenerations(store).forget(shard);
    }

    /** Commits base version {@code target}'s content as the latest version; returns the new version. */
    private long restoreBase(long target) {
        try (Dataset base = location.openBase(allocator);
                Dataset old = base.checkoutVersion(target)) {
            old.restore();
        }
        try (Dataset base = location.openBase(allocator)) {
            return base.version();
        }
    }

    private void requireVersion(long target) {
        List<Long> held = new ArrayList<>();
        try (Dataset base = location.openBase(allocator)) {
            for (Version v : base.listVersions()) {
                held.add(v.getId());
            }
        }
        held.sort(Long::compare);
        if (held.contains(target)) {
            requireMemWal(target);
            return;
        }
        String holds = "it holds " + held.size() + " versions, " + held.get(0) + " to " + held.get(held.size() - 1);
        if (target > 0 && target < held.get(held.size() - 1)) {
            throw new IllegalArgumentException("Table " + location.uri() + " no longer holds base version " + target
                    + ": the base table's cleanup removed it (it keeps the versions of sink.gc.retention, the"
                    + " compactor's cleanup retention, and tagged ones; " + holds + ")");
        }
        throw new IllegalArgumentException(
                "Table " + location.uri() + " has no base version " + target + " (" + holds + ")");
    }

    /**
     * A version without the MemWAL index (the table's first, before walsink set it up) would leave
     * no table to write; one with other columns would leave writers and checkpoints of the current
     * columns on a table without them.
     */
    private void requireMemWal(long target) {
        try (Dataset base = location.openBase(allocator);
                Dataset at = base.checkoutVersion(target)) {
            if (at.getIndexes().stream().noneMatch(i -> MergedGenerations.MEM_WAL_INDEX.equals(i.name()))) {
                throw new IllegalArgumentException("Not rolling back " + location.uri() + " to version " + target
                        + ": that version has no MemWAL index (it predates the table's set-up), so writers could"
                        + " not open the table after it; roll back to a later version");
            }
            List<String> then = columns(at.getSchema());
            List<String> now = columns(base.getSchema());
            if (!then.equals(now)) {
                throw new IllegalArgumentException("Not rolling back " + location.uri() + " to version " + target
                        + ": its columns " + then + " are not the table's now " + now
                        + "; a rollback across a schema change is not supported");
            }
        }
    }

    private static List<String> columns(org.apache.arrow.vector.types.pojo.Schema schema) {
        return schema.getFields().stream()
                .map(f -> f.getName() + " " + f.getType())
                .toList();
    }

    private void requireSameTarget(Optional<RollbackRecords.Intent> unfinished, long target) {
        if (unfinished.isPresent() && unfinished.get().target() != target) {
            throw new IllegalArgumentException("Not rolling back " + location.uri() + " to version " + target
                    + ": a rollback to version " + unfinished.get().target() + " was begun and not finished; run"
                    + " that rollback again to finish it first");
        }
    }
}
