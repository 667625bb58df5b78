package io.walsink.maintenance.compaction;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.MissingPrimaryKeyException;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.gc.GarbageCollector;
import io.walsink.maintenance.index.BaseIndexRefresh;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.recovery.GenerationMerge;
import io.walsink.recovery.KeyDeletes;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.MergeJournal;
import io.walsink.recovery.RetainedBaseVersions;
import io.walsink.storage.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;
import org.lance.cleanup.RemovalStats;
import org.slf4j.Logger;

/**
 * Merges the shards' published SSTables into the Lance base table, as the MemWAL specification's
 * SSTable compactor does: per shard, oldest generation first, with lance-core's merge-insert on the
 * primary key (the SSTable's rows replace the base table's rows of the same key, its tombstones
 * delete the key), recording the generation in the MemWAL index's {@code compacted_sstables} in the
 * same Lance commit ({@code MergeInsertParams.markGenerationsAsMerged}). The generations of
 * several buckets' shards, whose keys are disjoint, share one commit. Readers then skip the
 * SSTable, and its shard's writer drops it from the shard manifest at its next manifest update.
 *
 * <p>Safe while writers run: it merges only generations a published shard manifest lists, re-reads
 * the manifest and the base table's merge progress before each generation, and never merges a
 * generation twice. A run that fails part-way is retried by running again. One compactor per table
 * at a time: a run takes the table's compaction lease ({@link CompactionLeaseException} when another
 * holds it) and renews it before every commit (see docs/operations.md).
 *
 * <p>The engine behind {@link io.walsink.maintenance.Compactor}, which opens the table's store for
 * a user; the sink's maintenance and the tests build it over a store and a lease claimant of their
 * own. No Flink types.
 */
@Internal
public final class TableCompaction {
    private static final Logger LOG = CompactionLog.LOG;

    private final TableLocation location;
    private final ObjectStore store;
    private final String tableUri;
    private final BufferAllocator allocator;
    private final CompactorOptions options;
    private final CommitHook hook;
    private final LongSupplier nanoClock;
    private final LongSupplier leaseClock;
    private volatile boolean stopRequested;
    private volatile Duration consumerExpiration = GarbageCollector.DEFAULT_CONSUMER_EXPIRATION;
    private final LeaseClaimant claimant;

    /**
     * @param location the table: its store (the shard manifests) and its base table and SSTables
     */
    public TableCompaction(TableLocation location, BufferAllocator allocator, CompactorOptions options) {
        this(location, allocator, options, LeaseClaimant.standalone("compactor"), Seams.NONE);
    }

    /**
     * As the sink runs it: the compaction lease is taken for {@code claimant}, which takes back at
     * once an entry its own job's earlier attempt left.
     */
    public TableCompaction(
            TableLocation location, BufferAllocator allocator, CompactorOptions options, LeaseClaimant claimant) {
        this(location, allocator, options, claimant, Seams.NONE);
    }

    /**
     * Where tests reach into a run: a hook before each commit (and after its lease renewal), the
     * clock a run's time budget is measured by, and the wall clock of the lease.
     */
    record Seams(CommitHook hook, LongSupplier nanoClock, LongSupplier leaseClock) {
        static final Seams NONE = new Seams(CommitHook.NONE, System::nanoTime, System::currentTimeMillis);

        Seams withHook(CommitHook hook) {
            return new Seams(hook, nanoClock, leaseClock);
        }

        Seams withNanoClock(LongSupplier nanoClock) {
            return new Seams(hook, nanoClock, leaseClock);
        }

        Seams withLeaseClock(LongSupplier leaseClock) {
            return new Seams(hook, nanoClock, leaseClock);
        }
    }

    TableCompaction(
            TableLocation location,
            BufferAllocator allocator,
            CompactorOptions options,
            LeaseClaimant claimant,
            Seams seams) {
        this.hook = Objects.requireNonNull(seams.hook(), "hook");
        this.nanoClock = Objects.requireNonNull(seams.nanoClock(), "nanoClock");
        this.leaseClock = Objects.requireNonNull(seams.leaseClock(), "leaseClock");
        this.claimant = Objects.requireNonNull(claimant, "claimant");
        this.location = Objects.requireNonNull(location, "location");
        this.store = location.store();
        this.tableUri = location.uri();
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Asks a run in progress on another thread to end after the generations it is merging (its
     * commits are atomic); the rest is left for the next run, and the base table housekeeping is
     * skipped. A run started after the request ends at once.
     */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * With {@link CompactorOptions#cleanupRetention()}, consumer records written within this long
     * keep the base version their snapshot is pinned at (default 1 day, as garbage collection's).
     */
    public TableCompaction consumerExpiration(Duration expiration) {
        if (expiration.isNegative() || expiration.isZero()) {
            throw new IllegalArgumentException("consumer expiration must be positive, was " + expiration);
        }
        consumerExpiration = expiration;
        return this;
    }

    /**
     * One run over every shard of the table, then the optional base table housekeeping. The shards
     * take turns, one generation each (different buckets' generations merged in one commit, see
     * {@link CompactorOptions#maxGenerationsPerCommit()}), until each has merged what it lists or the run's budget
     * ({@link CompactorOptions#maxGenerationsPerRun()}, {@link CompactorOptions#maxRunTime()},
     * {@link #requestStop()}) is spent; what is left waits for the next run.
     */
    public CompactionResult run() {
        return run(null);
    }

    /**
     * As {@link #run()}, then {@code then} on the base table's latest version after the merges,
     * under the same hold of the lease (renewed first): no other compactor's merge and no restore's
     * reset commits between the merges and {@code then}'s commit. Before the housekeeping.
     */
    public CompactionResult run(Consumer<Dataset> then) {
        long started = nanoClock.getAsLong();
        try (CompactionLease taken =
                        CompactionLease.acquire(store, tableUri, claimant, options.leaseDuration(), leaseClock);
                Dataset base = location.openBase(allocator)) {
            GenerationMerge merge =
                    new GenerationMerge(base, location, allocator, hook, taken, new MergeJournal(store));
            TableInfo table = LanceTables.describe(tableUri, base, true);
            if (table.primaryKey().isEmpty()) {
                throw new MissingPrimaryKeyException(
                        tableUri,
                        "table at " + tableUri + " is an append table without walsink's row key "
                                + AppendRowKey.COLUMN + " (created by an earlier release or with a bucket column):"
                                + " its rows cannot be merged exactly once, so they stay in the shards' SSTables, where"
                                + " walsink's readers read them. A round-robin append table the sink creates now"
                                + " (createTableIfMissing without a key or bucket column) has the row key and is"
                                + " compacted; copy the rows into one to compact them",
                        null);
            }
            BaseIndexRefresh.warnOfKeyIndexes(base, keyFields(table), tableUri);
            List<ShardMerges> parts = plan(base, table);
            mergeInTurns(parts, table, merge, new RunBudget(options, nanoClock, () -> stopRequested));
            List<CompactionResult.ShardResult> results = new ArrayList<>();
            for (ShardMerges part : parts) {
                results.add(part.result(base, tableUri));
            }
            if (then != null) {
                base.checkoutLatest();
                taken.renew();
                then.accept(base);
            }
            boolean housekeeping = !stopRequested; // a stop skips it: it can take long
            boolean filesCompacted = false;
            if (housekeeping && options.fileCompaction().isPresent()) {
                base.checkoutLatest();
                long before = base.version();
                taken.renew();
                base.compact(options.fileCompaction().get());
                base.checkoutLatest();
                filesCompacted = true;
                LOG.info("Compacted the files of {}: version {} -> {}", tableUri, before, base.version());
            }
            // After the file compaction: its deferred remapping leaves index segments to rebuild.
            if (housekeeping) {
                refreshIndexes(base, table, taken);
            }
            Optional<Long> cleaned = Optional.empty();
            Optional<CleanupPolicy> cleanup = options.cleanup().or(() -> options.cleanupRetention()
                    .map(r -> RetainedBaseVersions.cleanupPolicy(
                            base,
                            r,
                            leaseClock.getAsLong(),
                            GarbageCollector.consumerPinnedBaseVersion(
                                    store, Instant.ofEpochMilli(leaseClock.getAsLong()), consumerExpiration))));
            if (housekeeping && cleanup.isPresent()) {
                taken.renew();
                RemovalStats removed = base.cleanupWithPolicy(cleanup.get());
                cleaned = Optional.of(removed.getOldVersions());
                LOG.info(
                        "Cleaned up {}: {} old versions, {} bytes removed",
                        tableUri,
                        removed.getOldVersions(),
                        removed.getBytesRemoved());
            }
            base.checkoutLatest();
            CompactionResult result = new CompactionResult(
                    tableUri,
                    results,
                    base.version(),
                    filesCompacted,
                    cleaned,
                    Duration.ofNanos(nanoClock.getAsLong() - started));
            LOG.info(
                    "Compacted {}: {} generations merged over {} shards in {} ms, base version {}",
                    tableUri,
                    result.mergedGenerations(),
                    results.size(),
                    result.duration().toMillis(),
                    result.baseVersion());
            return result;
        }
    }

    /**
     * The table's maintained indexes are created on the base table once it has rows for them and
     * retrained once it outgrew their training, and the base table's
     * indexes lose the fragments a merge touched; a failure here leaves them
     * missing or stale, which slows (or, for LanceDB's LSM searches, refuses) reads but keeps them
     * right, and the next run tries again.
     */
    private void refreshIndexes(Dataset base, TableInfo table, CompactionLease taken) {
        try {
            base.checkoutLatest();
            BaseIndexRefresh.afterMerges(base, tableUri, MaintainedIndexes.of(table), taken::renew);
        } catch (CompactionLeaseException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("Could not bring the indexes of {} up to date; the next compaction tries again", tableUri, e);
        }
    }

    static List<Field> keyFields(TableInfo table) {
        return KeyDeletes.keyFields(table);
    }

    /** Each shard's generations to merge, from its latest manifest and the base table's merge progress. */
    private List<ShardMerges> plan(Dataset base, TableInfo table) {
        Set<UUID> shards = TableLayout.shards(store);
        LOG.info("Compacting {}: {} shards, primary key {}", tableUri, shards.size(), table.primaryKey());
        base.checkoutLatest();
        Map<UUID, Long> merged = MergedGenerations.of(base, tableUri);
        List<ShardMerges> parts = new ArrayList<>();
        MergeJournal journal = new MergeJournal(store);
        for (UUID shard : shards) {
            // Records of merges a run died after marking; merges the latest version does not mark stay.
            journal.removeThrough(shard, merged.getOrDefault(shard, 0L));
            parts.add(ShardMerges.plan(
                    new ManifestStore(store, shard),
                    shard,
                    merged.getOrDefault(shard, 0L),
                    options.maxGenerationsPerShard()));
        }
        return parts;
    }

    /**
     * Generations in turns, one per shard and turn, each shard's oldest first, while the budget
     * lasts. Shards of different buckets hold disjoint keys, so a turn merges theirs together, up to
     * {@link CompactorOptions#maxGenerationsPerCommit()} generations and {@link
     * CompactorOptions#MAX_ROWS_PER_COMMIT} rows a commit; any other shard merges alone.
     */
    private void mergeInTurns(List<ShardMerges> parts, TableInfo table, GenerationMerge merge, RunBudget budget) {
        Set<UUID> buckets = bucketShards(table);
        while (true) {
            List<ShardMerges> turn = parts.stream().filter(ShardMerges::hasNext).toList();
            if (turn.isEmpty()) {
                return;
            }
            int next = 0;
            while (next < turn.size()) {
                Optional<String> exhausted = budget.exhausted();
                if (exhausted.isPresent()) {
                    LOG.info("Compaction of {} ends at {}; the rest waits for the next run", tableUri, exhausted.get());
                    parts.forEach(p -> p.budgetExhausted(exhausted.get()));
                    return;
                }
                List<ShardMerges> together = new ArrayList<>(List.of(turn.get(next++)));
                if (buckets.contains(together.get(0).shard())) {
                    int most = Math.min(options.maxGenerationsPerCommit(), budget.generationsLeft());
                    long rows = together.get(0).nextRows().orElse(Long.MAX_VALUE);
                    while (next < turn.size()
                            && together.size() < most
                            && buckets.contains(turn.get(next).shard())) {
                        long more = turn.get(next).nextRows().orElse(Long.MAX_VALUE);
                        if (more
                                > CompactorOptions.MAX_ROWS_PER_COMMIT
                                        - Math.min(rows, CompactorOptions.MAX_ROWS_PER_COMMIT)) {
                            break;
                        }
                        rows += more;
                        together.add(turn.get(next++));
                    }
                }
                mergeTogether(together, table, merge, budget);
            }
        }
    }

    /** The next generation of each of {@code together} in one merge. */
    private void mergeTogether(List<ShardMerges> together, TableInfo table, GenerationMerge merge, RunBudget budget) {
        long started = nanoClock.getAsLong();
        Map<UUID, ShardMerges> byShard = new HashMap<>();
        List<GenerationMerge.Member> members = new ArrayList<>();
        for (ShardMerges part : together) {
            budget.generationStarted();
            part.next().ifPresent(t -> {
                members.add(new GenerationMerge.Member(part.shard(), t));
                byShard.put(part.shard(), part);
            });
        }
        if (!members.isEmpty()) {
            for (GenerationMerge.Merged m : merge.merge(table, members)) {
                byShard.get(m.member().shard()).merged(m.member().sstable(), new long[] {m.upserts(), m.deletes()});
            }
        }
        long spent = nanoClock.getAsLong() - started;
        together.forEach(p -> p.spent(spent));
    }

    /**
     * The shards whose keys are one bucket's each: a bucket-sharded table's shards by their ids, and
     * a round-robin append table's, whose row keys carry their bucket ({@link AppendRowKey}).
     */
    private static Set<UUID> bucketShards(TableInfo table) {
        TableSharding sharding = table.sharding().sharding();
        int buckets;
        if (sharding.transform() == ShardTransform.BUCKET) {
            buckets = sharding.numBuckets().getAsInt();
        } else if (AppendRowKey.of(table)) {
            buckets = AppendShards.of(table);
        } else {
            return Set.of();
        }
        Set<UUID> ids = new HashSet<>();
        for (int b = 0; b < buckets; b++) {
            ids.add(ShardIds.bucket(b));
        }
        return ids;
    }
}
