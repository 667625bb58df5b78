package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.TableLayout;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.migration.ShardIdMigration;
import io.walsink.maintenance.schema.AddedColumns;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.MaintenanceExclusion;
import io.walsink.recovery.RestoreExclusion;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One seeded schedule of {@link RestoreSimulationTest}: a job of two bucket shards on a real
 * lance-core table, driven step by step by its random source through writes, publications,
 * checkpoints, compactor runs (crashing at a chosen commit), restores of retained checkpoints
 * (meeting a store fault at a chosen write, or stalling while a newer attempt restores, writes and
 * merges), zombie writers, a key index and an added column. The model is the last-write-wins map of every row
 * written since the checkpoint restored last; the end checks every reader against it.
 */
final class RestoreSchedule {
    private static final int BUCKETS = CompactionFixture.BUCKETS;
    private static final int KEYS = 60;
    private static final int RETAINED = 4;
    /** A rollback step after about one step in this many. */
    private static final int ROLLBACK_EVERY = 10;

    /** What the schedules reached, counted across a run. */
    static final class Stats {
        int schedules;
        int steps;
        int checkpoints;
        int checkpointsWithUnpublished;
        int compactions;
        int compactorCrashes;
        int crashesBetweenDeletesAndMark;
        int restores;
        int restoreFaults;
        int faultsAfterReset;
        int resets;
        int resetsUnderKeyIndex;
        int passedOverCopies;
        int fencedRestores;
        int zombiesFenced;
        int keyIndexes;
        int lanceDbReads;
        int tagsAndBranches;
        int cleanups;
        long cleanedVersions;
        int collections;
        long collectedObjects;
        int migrations;
        int interruptedMigrations;
        final ScheduledRollback.Counts rollbacks = new ScheduledRollback.Counts();
        int columnsAdded;
        int resetsAcrossAddedColumn;

        @Override
        public String toString() {
            return schedules + " schedules, " + steps + " steps, " + checkpoints + " checkpoints ("
                    + checkpointsWithUnpublished + " with unpublished SSTables), " + compactions + " compactor runs, "
                    + compactorCrashes + " compactor crashes (" + crashesBetweenDeletesAndMark
                    + " between a merge's deletes and its mark), " + restores + " restores, " + restoreFaults
                    + " store faults in restores (" + faultsAfterReset + " after a reset began), " + resets
                    + " bucket resets (" + resetsUnderKeyIndex + " under a key index), " + passedOverCopies
                    + " restores that published a passed-over generation as a copy, " + fencedRestores
                    + " restores fenced by a newer attempt, " + zombiesFenced + " zombie writers fenced, " + keyIndexes
                    + " key indexes, " + lanceDbReads + " schedules also read by LanceDB, " + tagsAndBranches
                    + " base-table tags and branches, " + cleanups + " base-table cleanups (" + cleanedVersions
                    + " versions removed), " + collections + " garbage collections (" + collectedObjects
                    + " objects removed), " + migrations + " shard-id migrations (" + interruptedMigrations
                    + " interrupted by a store fault and run again), " + columnsAdded + " columns added ("
                    + resetsAcrossAddedColumn + " bucket resets to a checkpoint from before), " + rollbacks;
        }
    }

    private record Checkpoint(int id, List<ShardDescriptor> shards, Map<Long, Map<String, Object>> model) {}

    private final Path dir;
    private final long seed;
    private final Stats stats;
    private final Random random;
    private final StringBuilder trace = new StringBuilder();
    private final LeaseClaimant job = LeaseClaimant.job("simulated-job", List.of());
    private final List<Checkpoint> retained = new ArrayList<>();
    private final List<ShardWriter> zombies = new ArrayList<>();
    private CompactionFixture f;
    private FaultingStore store;
    private TableContext ctx;
    private List<ShardWriter> live = List.of();
    private TableHousekeeping housekeeping;
    /** The shards' ids: the earlier release's until a schedule that starts with them migrates. */
    private List<UUID> ids = CompactionFixture.SHARDS;

    private boolean legacy;
    private boolean migrated;
    private boolean keyIndex;
    private boolean corruptModel;
    private boolean lanceDb;
    private int checkpoints;
    /** The last checkpoint taken before the column was added; 0 while it is not. */
    private int beforeAddedColumn;

    RestoreSchedule(Path dir, long seed, Stats stats) {
        this.dir = dir;
        this.seed = seed;
        this.stats = stats;
        this.random = new Random(seed);
    }

    /** Also read the table with LanceDB's default read at the end (a Node process: only on a sample). */
    void withLanceDb() {
        lanceDb = true;
    }

    /** For the test that shows the checks can fail: the model gains a row nobody wrote. */
    void corruptModelAtTheEnd() {
        corruptModel = true;
    }

    String trace() {
        return trace.toString();
    }

    void run() {
        f = new CompactionFixture(dir, seed);
        try {
            store = new FaultingStore(f.store);
            ctx = new TableContext(
                    new TableLocation(store, f.table.uri(), Map.of()),
                    f.table,
                    WalSchemaProfile.SPEC,
                    f.context.config(),
                    f.allocator);
            housekeeping = new TableHousekeeping(f, job);
            int steps = 4 + random.nextInt(10);
            int indexAt = random.nextBoolean() ? random.nextInt(steps) : -1;
            int columnAt = columnAddedAt(steps);
            legacy = random.nextInt(4) == 0;
            if (legacy) {
                ids = new ArrayList<>();
                for (int b = 0; b < BUCKETS; b++) {
                    ids.add(ShardIds.legacyBucket(f.table.sharding().specId(), b));
                }
                log("shards under the ids of an earlier release: " + ids);
            }
            live = new ArrayList<>();
            for (int b = 0; b < BUCKETS; b++) {
                live.add(ShardOpener.open(ctx, ids.get(b), b, f.placement(b)));
            }
            for (int s = 0; s < steps; s++) {
                if (s == indexAt) {
                    log("create a BTREE index on the key");
                    f.createKeyIndex();
                    keyIndex = true;
                    stats.keyIndexes++;
                }
                if (s == columnAt) {
                    addColumn();
                }
                step(s);
                stats.steps++;
            }
            finish();
            stats.schedules++;
        } finally {
            live.forEach(ShardWriter::close);
            zombies.forEach(ShardWriter::close);
            f.close();
        }
    }

    /** One round: some writes, then, each by chance, a publication, a checkpoint, a compactor run, a restore. */
    private void step(int s) {
        if (random.nextInt(5) == 0 && !f.model.isEmpty()) {
            deleteOnly();
        } else {
            int ops = 5 + random.nextInt(30);
            log("write " + ops + " operations");
            f.randomOps(live, ops, KEYS, "s" + s);
        }
        if (random.nextInt(10) < 6) {
            log("publish a generation per shard");
            CompactionFixture.publishGeneration(live);
        }
        if (random.nextInt(10) < 4) {
            checkpoint();
        }
        // A compactor inside the sink that dies takes the job down with it: the job restores.
        boolean crashed = random.nextInt(10) < 4 && !compact();
        if ((random.nextInt(10) < 3 || crashed && random.nextBoolean()) && !retained.isEmpty()) {
            restore(retained.get(random.nextInt(retained.size())), true);
        }
        if (random.nextInt(10) == 0) {
            pokeZombies();
        }
        housekeeping();
        if (random.nextInt(ROLLBACK_EVERY) == 0 && (!legacy || migrated)) {
            rollback();
        }
    }

    /**
     * The table rolled back to a base version ({@link ScheduledRollback}): the writers of before are
     * fenced zombies, and the checkpoints of before are refused, so none is retained.
     */
    private void rollback() {
        new ScheduledRollback(f, store, ctx, ids, random, seed, stats.rollbacks, this::log)
                .run(live, retained.stream().map(Checkpoint::shards).toList())
                .ifPresent(fresh -> {
                    zombies.addAll(live);
                    live = fresh;
                    retained.clear();
                });
    }

    /**
     * Now and then, what time passing brings: a Lance user's tag or branch, a base-table cleanup, a
     * garbage collection, each keeping only what the retained checkpoints and the live writers need;
     * and, in a schedule that started under an earlier release's shard ids, the migration to Lance's.
     */
    private void housekeeping() {
        if (random.nextInt(8) == 0) {
            log(housekeeping.tagOrBranch(random));
            stats.tagsAndBranches++;
        }
        if (random.nextInt(6) == 0) {
            long oldest = needed().stream()
                    .mapToLong(ShardDescriptor::baseVersion)
                    .min()
                    .orElseThrow();
            boolean compactFiles = random.nextBoolean();
            long removed = housekeeping.cleanUp(oldest, compactFiles);
            log("clean up the base table keeping base version " + oldest + " on"
                    + (compactFiles ? ", after compacting its files" : "") + ": " + removed + " versions removed");
            stats.cleanups++;
            stats.cleanedVersions += removed;
        }
        if (random.nextInt(6) == 0) {
            // A day later, Flink has long cancelled every fenced attempt (task.cancellation.timeout):
            // a zombie never sees its next manifest version collected.
            zombies.forEach(ShardWriter::close);
            zombies.clear();
            Map<UUID, Long> oldest = new TreeMap<>();
            for (ShardDescriptor d : needed()) {
                oldest.merge(ids.get(d.bucket()), d.manifestVersion(), Math::min);
            }
            long removed = housekeeping.collect(oldest);
            log("collect garbage keeping manifest versions " + oldest + " on: " + removed + " objects removed");
            stats.collections++;
            stats.collectedObjects += removed;
        }
        if (legacy && !migrated && !retained.isEmpty() && random.nextInt(3) == 0) {
            migrate();
        }
    }

    /** The shard states housekeeping must keep: every retained checkpoint's and what each live writer would checkpoint now. */
    private List<ShardDescriptor> needed() {
        List<ShardDescriptor> needed = new ArrayList<>();
        retained.forEach(c -> needed.addAll(c.shards()));
        for (ShardWriter w : live) {
            SyncShardDriver.appendAllPending(w);
            needed.add(w.snapshot());
        }
        return needed;
    }

    /**
     * The job stops (its zombies too), {@code migrate-shard-ids} moves the shards to Lance's ids,
     * and the job restores a retained checkpoint of the earlier release; a merge first, now and then,
     * so that a checkpoint's SSTables may all be merged before the migration.
     */
    private void migrate() {
        live.forEach(ShardWriter::close);
        live = List.of();
        zombies.forEach(ShardWriter::close);
        zombies.clear();
        if (random.nextBoolean()) {
            new TableCompaction(
                            new TableLocation(f.store, f.uri, Map.of()), f.allocator, CompactorOptions.defaults(), job)
                    .run();
            log("merge everything");
        }
        ShardIdMigration migration = new ShardIdMigration(new TableLocation(store, f.uri, Map.of()), f.allocator);
        assertThat(migration.plan()).as("shards to migrate (seed %s)", seed).hasSize(BUCKETS);
        if (random.nextBoolean()) {
            // A run interrupted at a store call, then run again, as the command's user would.
            // Not at the lease: a run that dies holding it makes the next wait for its expiry (10
            // minutes, which the refusal names), a wait the schedule does not simulate.
            store.arm(1 + random.nextInt(80), random.nextBoolean());
            store.spare = "_walsink/compaction-lease/";
            log("migrate-shard-ids with " + store.describeArmed());
            try {
                migration.run(line -> {});
            } catch (RuntimeException e) {
                if (!store.disarm()) {
                    throw e;
                }
                stats.interruptedMigrations++;
                log("  failed on the injected fault: " + e.getMessage());
            }
            store.disarm();
            store.spare = null;
        }
        // Moves what is left: everything, or what an interrupted run had not removed yet.
        List<ShardIdMigration.Move> moves = migration.run(line -> {});
        assertThat(migration.plan())
                .as("nothing left to migrate (seed %s)", seed)
                .isEmpty();
        ids = CompactionFixture.SHARDS;
        migrated = true;
        stats.migrations++;
        log("migrate-shard-ids: " + moves);
        restore(retained.get(random.nextInt(retained.size())), true);
    }

    /** A few deletes of existing keys and nothing else, so that generations hold only tombstones. */
    private void deleteOnly() {
        List<Long> keys = new ArrayList<>(f.model.keySet());
        int n = 1 + random.nextInt(Math.min(4, keys.size()));
        List<Long> deleted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long id = keys.remove(random.nextInt(keys.size()));
            f.delete(live.get(CompactionFixture.bucketOf(id)), id);
            deleted.add(id);
        }
        log("delete only " + deleted);
    }

    private void checkpoint() {
        boolean unpublished = random.nextInt(3) == 0;
        List<ShardDescriptor> shards = new ArrayList<>();
        for (ShardWriter w : live) {
            if (unpublished) {
                SyncShardDriver.appendAllPending(w);
                w.freezeActive();
                SyncShardDriver.appendAllPending(w);
                SyncShardDriver.flushFrozen(w); // written, published only if a later step publishes
            }
            SyncShardDriver.appendAllPending(w);
            shards.add(w.snapshot());
        }
        Checkpoint c = new Checkpoint(++checkpoints, shards, new TreeMap<>(f.model));
        log("checkpoint " + c.id() + (unpublished ? " with unpublished SSTables" : "") + ": " + shards);
        retained.add(c);
        if (retained.size() > RETAINED) {
            retained.remove(0);
        }
        stats.checkpoints++;
        stats.checkpointsWithUnpublished += unpublished ? 1 : 0;
    }

    /** A compactor run that, most times, dies before one of its commits; whether it ended. */
    private boolean compact() {
        int crashAt = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(4);
        // Under a key index, some runs die right after their first plain deletes, a rare point otherwise.
        boolean crashAfterDeletes = keyIndex && random.nextInt(3) == 0;
        boolean batched = random.nextBoolean();
        Set<String> deleted = new HashSet<>();
        int[] commits = {0};
        boolean[] betweenDeletesAndMark = {false};
        CommitHook hook = new CommitHook() {
            @Override
            public void beforeCommit(UUID shard, long generation, Step step) {
                String id = shard + "/" + generation;
                if (++commits[0] == crashAt) {
                    betweenDeletesAndMark[0] = step == Step.MERGE_AND_MARK && deleted.contains(id);
                    throw new CompactionFixture.Crash();
                }
            }

            @Override
            public void keysDeleted(UUID shard, long generation) {
                deleted.add(shard + "/" + generation);
                if (++commits[0] == crashAt || crashAfterDeletes) {
                    betweenDeletesAndMark[0] = true;
                    throw new CompactionFixture.Crash();
                }
            }
        };
        CompactorOptions options = batched
                ? CompactorOptions.defaults()
                : CompactorOptions.defaults().withMaxGenerationsPerCommit(1);
        stats.compactions++;
        try {
            CompactionResult result = new TableCompaction(
                            new TableLocation(f.store, f.uri, Map.of()),
                            f.allocator,
                            options,
                            job,
                            TableCompaction.Seams.NONE.withHook(hook))
                    .run();
            log("compact (" + (batched ? "batched" : "one per commit") + "): merged " + result.mergedGenerations());
            return true;
        } catch (CompactionFixture.Crash crash) {
            stats.compactorCrashes++;
            stats.crashesBetweenDeletesAndMark += betweenDeletesAndMark[0] ? 1 : 0;
            log("compact (" + (batched ? "batched" : "one per commit") + "): crashed at hook call " + commits[0]
                    + (betweenDeletesAndMark[0] ? ", between a merge's deletes and its mark" : ""));
            return false;
        }
    }

    /**
     * Restores {@code c} in every bucket, as a job restart does; the old writers are closed or left
     * running as zombies. An attempt may meet a store fault (then the job restores again, the same
     * checkpoint or another retained one) or stall before its reset while a newer attempt restores,
     * writes and merges (then it must stop as fenced, or end as a zombie).
     */
    private void restore(Checkpoint c, boolean disturb) {
        retire(live);
        live = List.of();
        for (int attempt = 1; ; attempt++) {
            boolean fault = disturb && attempt <= 3 && random.nextInt(5) < 2;
            boolean stall = disturb && !fault && attempt == 1 && random.nextInt(3) == 0;
            if (fault) {
                store.arm(1 + random.nextInt(120), random.nextBoolean());
            }
            log("restore checkpoint " + c.id() + ", attempt " + attempt
                    + (fault ? " with " + store.describeArmed() : "") + (stall ? ", stalling before its reset" : ""));
            Stall stalled = new Stall(stall);
            List<ShardWriter> opened = new ArrayList<>();
            int resetsBefore = resetCount();
            int copiesBefore = store.ssTableCopies;
            try {
                for (int b = 0; b < BUCKETS; b++) {
                    // After migrate-shard-ids, an earlier release's checkpoint restores by its bucket.
                    ShardDescriptor state = c.shards().get(b).withShardId(ids.get(b));
                    opened.add(ShardRestore.restore(ctx, state, f.placement(b), stalled.exclusion()));
                }
                store.disarm();
                if (resetCount() == resetsBefore && store.ssTableCopies > copiesBefore) {
                    // No reset, yet SSTables copied: only a generation another branch passed over does that.
                    stats.passedOverCopies++;
                    log("  published a passed-over generation as a copy");
                }
                countResets(resetsBefore);
                countResetsAcrossAddedColumn(c.id(), resetsBefore);
                stats.restores++;
                if (stalled.fired) {
                    log("  the stalled attempt ended without touching anything; its writers are zombies");
                    zombies.addAll(opened);
                    return;
                }
                f.model.clear();
                f.model.putAll(c.model());
                live = opened;
                assertThat(f.read(ReadMode.LATEST))
                        .as("LATEST right after restoring checkpoint %s (seed %s)", c.id(), seed)
                        .isEqualTo(List.copyOf(f.model.values()));
                return;
            } catch (RuntimeException e) {
                boolean fired = store.disarm();
                opened.forEach(ShardWriter::close);
                if (stalled.fired) {
                    assertThat(poisonedAsFenced(e))
                            .as("a stalled restore fails only as fenced: %s", e)
                            .isTrue();
                    log("  fenced, as it must be: " + e.getMessage());
                    stats.fencedRestores++;
                    return;
                }
                if (!fired) {
                    throw e; // no injected fault explains it
                }
                stats.restoreFaults++;
                stats.faultsAfterReset += store.firedAfterIntent ? 1 : 0;
                log("  failed on the injected fault" + (store.firedAfterIntent ? " after a reset began" : "") + ": "
                        + e.getMessage());
                int next = random.nextInt(4);
                if (next < 2) {
                    c = retained.get(retained.size() - 1); // as a failover restores the latest
                } else if (next == 2) {
                    c = retained.get(random.nextInt(retained.size()));
                }
            }
        }
    }

    /** Stands for attempt 1 stalling after its claim: attempt 2 restores, writes, publishes and merges meanwhile. */
    private final class Stall {
        private final boolean armed;
        boolean fired;

        Stall(boolean armed) {
            this.armed = armed;
        }

        MaintenanceExclusion exclusion() {
            RestoreExclusion real = new RestoreExclusion(store, f.uri, job);
            return why -> {
                if (armed && !fired) {
                    fired = true;
                    log("  attempt 1 stalls; attempt 2 runs");
                    restore(retained.get(random.nextInt(retained.size())), false);
                    f.randomOps(live, 5 + random.nextInt(20), KEYS, "attempt-2");
                    CompactionFixture.publishGeneration(live);
                    new TableCompaction(
                                    new TableLocation(f.store, f.uri, Map.of()),
                                    f.allocator,
                                    CompactorOptions.defaults(),
                                    job)
                            .run();
                    log("  attempt 2 wrote, published and merged; attempt 1 resumes");
                }
                return real.hold(why);
            };
        }
    }

    private static boolean poisonedAsFenced(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShardPoisonedException p && p.reason() == ShardPoisonedException.Reason.FENCED) {
                return true;
            }
        }
        return false;
    }

    /** Old writers are closed, or, now and then, left running as zombies that must be fenced later. */
    private void retire(List<ShardWriter> writers) {
        for (ShardWriter w : writers) {
            if (random.nextInt(4) == 0) {
                zombies.add(w);
            } else {
                w.close();
            }
        }
    }

    /** A zombie's write must fail: a newer epoch fenced it. */
    private void pokeZombies() {
        for (ShardWriter z : zombies) {
            long id = random.nextInt(KEYS);
            try (VectorSchemaRoot row = f.rows(id, "zombie", -1)) {
                z.put(row);
                SyncShardDriver.flushAndPublishAll(z);
            } catch (RuntimeException fenced) {
                stats.zombiesFenced++;
                log("zombie writer fenced: " + fenced.getMessage());
                z.close();
                continue;
            }
            z.close();
            throw new AssertionError("a zombie writer published a row (seed " + seed + ")");
        }
        zombies.clear();
    }

    private void finish() {
        pokeZombies();
        log("finish: publish, read, merge everything, read again");
        CompactionFixture.publishGeneration(live);
        if (corruptModel) {
            f.model.put(10_000L, row(10_000L, "nobody", 0));
        }
        List<Map<String, Object>> rows = List.copyOf(f.model.values());
        assertThat(f.read(ReadMode.LATEST)).as("LATEST (seed %s)", seed).isEqualTo(rows);
        assertThat(f.read(ReadMode.COMMITTED)).as("COMMITTED (seed %s)", seed).isEqualTo(rows);
        if (lanceDb) {
            assertThat(f.lanceDbRows(seed))
                    .as("LanceDB's default read (seed %s)", seed)
                    .isEqualTo(f.asStrings(rows));
            stats.lanceDbReads++;
        }
        new TableCompaction(new TableLocation(f.store, f.uri, Map.of()), f.allocator, CompactorOptions.defaults(), job)
                .run();
        CompactionFixture.publishGeneration(live); // writers drop what was merged
        assertThat(f.baseRows())
                .as("the base table alone after merging (seed %s)", seed)
                .isEqualTo(rows);
        assertThat(f.lsmScan(ids)).as("lance-core's LsmScanner (seed %s)", seed).isEqualTo(rows);
        housekeeping.checkTagsAndBranches(seed);
        assertThat(f.read(ReadMode.COMMITTED))
                .as("COMMITTED after merging (seed %s)", seed)
                .isEqualTo(rows);
    }

    /**
     * The step before which ALTER TABLE ... ADD COLUMN runs, in one schedule in three, or -1. Drawn
     * from a source of its own, so that the other choices of a schedule without it stay as they were.
     */
    private int columnAddedAt(int steps) {
        Random alter = new Random(~seed);
        return alter.nextInt(3) == 0 ? alter.nextInt(steps) : -1;
    }

    /**
     * ALTER TABLE ... ADD COLUMN note, as operations.md asks: the job stops with a savepoint, the
     * column is added ({@code AddedColumns}: a merge, then the column, under one lease), and the job
     * restarts from the savepoint with the table's columns now. Rows so far read the column as null
     * (in the model and in every retained checkpoint's); rows written after set it now and then.
     */
    private void addColumn() {
        checkpoint();
        Checkpoint savepoint = retained.get(retained.size() - 1);
        live.forEach(ShardWriter::close);
        live = List.of();
        Field note = Field.nullable("note", ArrowType.Utf8.INSTANCE);
        long version = AddedColumns.add(f.uri, null, f.uri, Map.of(), List.of(note));
        f.columnAdded(note);
        retained.forEach(c -> c.model().values().forEach(row -> row.putIfAbsent("note", null)));
        beforeAddedColumn = savepoint.id();
        stats.columnsAdded++;
        log("stop with savepoint " + savepoint.id() + ", ALTER TABLE ADD COLUMN note (base version " + version
                + "), restart from the savepoint");
        ctx = new TableContext(
                new TableLocation(store, f.uri, Map.of()),
                LanceTables.open(f.uri, Map.of()),
                WalSchemaProfile.SPEC,
                f.context.config(),
                f.allocator);
        restore(savepoint, true);
    }

    /** Resets that set a bucket back to a checkpoint from before the column was added. */
    private void countResetsAcrossAddedColumn(int checkpoint, int resetsBefore) {
        if (beforeAddedColumn > 0 && checkpoint <= beforeAddedColumn) {
            stats.resetsAcrossAddedColumn += store.intentsBegun - resetsBefore;
        }
    }

    private int resetCount() {
        return store.intentsBegun;
    }

    private void countResets(int before) {
        int resets = store.intentsBegun - before;
        stats.resets += resets;
        stats.resetsUnderKeyIndex += keyIndex ? resets : 0;
    }

    private void log(String line) {
        trace.append(line).append('\n');
    }

    void deleteFiles() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The restores' store: when armed, its n-th call fails, a read or a write (put, put-if-absent
     * or delete), a write either before reaching the store or after it (a lost acknowledgement). A
     * failed read stands for a crash at that point: the restore reads the shard's manifest before
     * every commit of its reset. Counts the restore intents
     * written, which is how the schedule learns that a restore reset a bucket.
     */
    private static final class FaultingStore extends ForwardingObjectStore {
        private int countdown;
        /** Calls on keys under this prefix are not counted (and never fail); null: all are. */
        String spare;

        private boolean loseAcknowledgement;
        private boolean fired;
        boolean firedAfterIntent;
        int intentsBegun;
        /** SSTable folders copied (their Lance manifest, copied last; lance-core writes SSTables by itself). */
        int ssTableCopies;

        FaultingStore(ObjectStore delegate) {
            super(delegate);
        }

        void arm(int nth, boolean loseAcknowledgement) {
            this.countdown = nth;
            this.loseAcknowledgement = loseAcknowledgement;
            this.fired = false;
            this.firedAfterIntent = false;
        }

        String describeArmed() {
            return "a fault at write " + countdown + (loseAcknowledgement ? " (acknowledgement lost)" : "");
        }

        /** Disarms; whether the fault fired since {@link #arm}. */
        boolean disarm() {
            countdown = 0;
            boolean was = fired;
            fired = false;
            return was;
        }

        @Override
        public void put(String key, byte[] data) {
            write(key, () -> super.put(key, data));
            if (key.startsWith(intentFolder())) {
                intentsBegun++;
            }
            if (key.contains("_gen_") && key.contains("/_versions/")) {
                ssTableCopies++;
            }
        }

        @Override
        public void putIfAbsent(String key, byte[] data) {
            write(key, () -> super.putIfAbsent(key, data));
        }

        @Override
        public void delete(String key) {
            write(key, () -> super.delete(key));
        }

        @Override
        public byte[] get(String key) {
            read(key);
            return super.get(key);
        }

        @Override
        public ListPage list(String prefix, String continuation, int maxKeys) {
            read(prefix);
            return super.list(prefix, continuation, maxKeys);
        }

        private void read(String key) {
            if (spare != null && key.startsWith(spare)) {
                return;
            }
            if (countdown > 0 && --countdown == 0) {
                fired = true;
                firedAfterIntent = !delegate().listAll(intentFolder()).isEmpty();
                throw new StorageException(key, "simulated store fault", false);
            }
        }

        private void write(String key, Runnable write) {
            if (spare != null && key.startsWith(spare)) {
                write.run();
                return;
            }
            if (countdown > 0 && --countdown == 0) {
                fired = true;
                firedAfterIntent = !delegate().listAll(intentFolder()).isEmpty();
                if (loseAcknowledgement) {
                    write.run();
                }
                throw new StorageException(key, "simulated store fault", false);
            }
            write.run();
        }

        private static String intentFolder() {
            UUID any = new UUID(0, 0);
            return TableLayout.restoreIntentKey(any).replace(any.toString(), "");
        }
    }

    static Map<String, Object> row(long id, String name, int score) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("score", score);
        return row;
    }
}
