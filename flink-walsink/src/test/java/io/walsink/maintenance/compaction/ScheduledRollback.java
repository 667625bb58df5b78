package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.RollbackRecords;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.RollbackResult;
import io.walsink.maintenance.rollback.RollbackRun;
import io.walsink.read.ReadMode;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.ObjectStore;
import io.walsink.testing.LanceRows;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.Version;

/**
 * The rollback step of {@link RestoreSchedule}: the table rolled back to a base version it holds,
 * the job running or stopped with everything published, the rollback crashing now and then at one
 * of its points and run again. While its intent stands, restores and opens are refused; after it,
 * every reader reads the version's rows, the merge progress is the version's, restores of the
 * checkpoints taken before are refused, and the job goes on from fresh writers whose checkpoints
 * the rest of the schedule restores.
 */
final class ScheduledRollback {
    /** What the rollback steps reached, counted across a run. */
    static final class Counts {
        int rollbacks;
        int forced;
        int resumed;
        final Map<RollbackRun.Point, Integer> crashes = new EnumMap<>(RollbackRun.Point.class);
        int refusedWhileUnderWay;
        int refusedStaleRestores;
        int refusedFirstVersion;
        int refusedOtherSchema;

        int crashes(RollbackRun.Point point) {
            return crashes.getOrDefault(point, 0);
        }

        @Override
        public String toString() {
            return rollbacks + " rollbacks (" + refusedFirstVersion + " to version 1 and " + refusedOtherSchema
                    + " to other columns refused, " + forced
                    + " forced past WAL rows, " + resumed
                    + " finished by a second run after a crash " + crashes + "; " + refusedWhileUnderWay
                    + " restores and opens refused while one was under way, " + refusedStaleRestores
                    + " restores of earlier checkpoints refused after)";
        }
    }

    private final CompactionFixture f;
    private final ObjectStore store;
    private final TableContext ctx;
    private final List<UUID> ids;
    private final Random random;
    private final long seed;
    private final Counts counts;
    private final Consumer<String> log;

    ScheduledRollback(
            CompactionFixture f,
            ObjectStore store,
            TableContext ctx,
            List<UUID> ids,
            Random random,
            long seed,
            Counts counts,
            Consumer<String> log) {
        this.f = f;
        this.store = store;
        this.ctx = ctx;
        this.ids = ids;
        this.random = random;
        this.seed = seed;
        this.counts = counts;
        this.log = log;
    }

    /**
     * Rolls the table back; {@code live} are fenced by it (the caller keeps them as zombies) and
     * {@code retained} are the states of the checkpoints taken before. Returns the job's new writers;
     * empty if the table holds no version to roll back to (nothing done).
     */
    Optional<List<ShardWriter>> run(List<ShardWriter> live, List<List<ShardDescriptor>> retained) {
        List<Long> held = versions();
        // Version 1 predates the MemWAL index: refused, writing nothing (TableRollbackTest).
        if (held.get(0) == 1 && random.nextInt(8) == 0) {
            assertThatThrownBy(() -> rollback(RollbackRun.Hook.NONE).run(1, true))
                    .hasMessageContaining("has no MemWAL index");
            counts.refusedFirstVersion++;
        }
        // Versions of other columns (before an ADD COLUMN) are refused, writing nothing.
        List<Long> otherSchema =
                held.stream().filter(v -> v > 1 && !sameColumns(v)).toList();
        if (!otherSchema.isEmpty() && random.nextInt(4) == 0) {
            long other = otherSchema.get(random.nextInt(otherSchema.size()));
            assertThatThrownBy(() -> rollback(RollbackRun.Hook.NONE).run(other, true))
                    .hasMessageContaining("a rollback across a schema change is not supported");
            counts.refusedOtherSchema++;
        }
        List<Long> targets =
                held.stream().filter(v -> v > 1 && !otherSchema.contains(v)).toList();
        if (targets.isEmpty()) {
            return Optional.empty();
        }
        long target = targets.get(random.nextInt(targets.size()));
        Map<Long, Map<String, Object>> expected = new TreeMap<>();
        Map<UUID, Long> mergedAtTarget;
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of());
                Dataset at = base.checkoutVersion(target)) {
            for (Map<String, Object> row : LanceRows.scan(at)) {
                expected.put((Long) row.get("id"), row);
            }
            mergedAtTarget = MergedGenerations.of(at, f.uri);
        }
        boolean force = random.nextBoolean();
        if (force) {
            live.forEach(SyncShardDriver::appendAllPending); // a running job's rows, only in the WAL
            counts.forced++;
        } else {
            CompactionFixture.publishGeneration(live); // as a stop with a savepoint leaves it
        }
        RollbackRun.Point[] points = RollbackRun.Point.values();
        int pick = random.nextInt(points.length + 1);
        RollbackRun.Point crashAt = pick == points.length ? null : points[pick];
        int claimToCrashAt = 1 + random.nextInt(ids.size());
        log.accept("roll back to base version " + target + (force ? ", forced" : "")
                + (crashAt == null ? "" : ", crashing " + at(crashAt, claimToCrashAt)));
        int[] claims = {0};
        RollbackRun.Hook hook = (point, shard) -> {
            if (point == crashAt && (point != RollbackRun.Point.CLAIM || ++claims[0] == claimToCrashAt)) {
                throw new CompactionFixture.Crash();
            }
        };
        RollbackResult result;
        try {
            result = rollback(hook).run(target, force);
            assertThat(crashAt).as("the crash point was passed (seed %s)", seed).isNull();
        } catch (CompactionFixture.Crash crash) {
            counts.crashes.merge(crashAt, 1, Integer::sum);
            checkUnderWay(target, targets, retained);
            long restoredAs =
                    new RollbackRecords(store).readIntent().orElseThrow().newBase();
            boolean restored = crashAt == RollbackRun.Point.LANCE_RESTORE || crashAt == RollbackRun.Point.BEFORE_RECORD;
            assertThat(restoredAs > 0)
                    .as("the intent records the Lance restore (seed %s)", seed)
                    .isEqualTo(restored);
            result = rollback(RollbackRun.Hook.NONE).run(target, false);
            assertThat(result.resumed()).isTrue();
            if (restored) {
                assertThat(result.newBase())
                        .as("a resumed rollback does not restore again (seed %s)", seed)
                        .isEqualTo(restoredAs)
                        .isEqualTo(f.baseVersion());
            }
            counts.resumed++;
        }
        counts.rollbacks++;
        log.accept("  " + String.join("; ", result.describe("the table")));
        checkDone(target, result, retained, mergedAtTarget);
        f.model.clear();
        f.model.putAll(expected);
        assertThat(f.read(ReadMode.LATEST))
                .as("LATEST right after the rollback to %s (seed %s)", target, seed)
                .isEqualTo(List.copyOf(expected.values()));
        List<ShardWriter> opened = new ArrayList<>();
        for (int b = 0; b < ids.size(); b++) {
            opened.add(ShardOpener.open(ctx, ids.get(b), b, f.placement(b)));
        }
        return Optional.of(opened);
    }

    /** While the intent stands: restores, opens and a rollback elsewhere are refused, touching nothing. */
    private void checkUnderWay(long target, List<Long> targets, List<List<ShardDescriptor>> retained) {
        long epoch = epoch(ids.get(0));
        if (!retained.isEmpty()) {
            ShardDescriptor state =
                    retained.get(random.nextInt(retained.size())).get(0);
            assertThatThrownBy(() -> ShardRestore.restore(ctx, state.withShardId(ids.get(0)), f.placement(0)))
                    .as("a restore while a rollback is under way (seed %s)", seed)
                    .hasMessageContaining("has not finished");
            counts.refusedWhileUnderWay++;
        }
        assertThatThrownBy(() -> ShardOpener.open(ctx, ids.get(0), 0, f.placement(0)))
                .as("an open while a rollback is under way (seed %s)", seed)
                .hasMessageContaining("has not finished");
        counts.refusedWhileUnderWay++;
        assertThat(epoch(ids.get(0)))
                .as("the refusals claimed nothing (seed %s)", seed)
                .isEqualTo(epoch);
        targets.stream().filter(v -> v != target).findFirst().ifPresent(other -> assertThatThrownBy(
                        () -> rollback(RollbackRun.Hook.NONE).run(other, true))
                .as("a rollback to another version (seed %s)", seed)
                .hasMessageContaining("was begun and not finished"));
    }

    private void checkDone(
            long target, RollbackResult result, List<List<ShardDescriptor>> retained, Map<UUID, Long> mergedAtTarget) {
        RollbackRecords records = new RollbackRecords(store);
        assertThat(records.readIntent())
                .as("the intent is gone (seed %s)", seed)
                .isEmpty();
        RollbackRecords.Done done = records.readDone().orElseThrow();
        assertThat(done.target()).isEqualTo(target);
        assertThat(done.newBase()).isEqualTo(result.newBase());
        for (UUID id : ids) {
            assertThat(done.fenced().get(id))
                    .as("the record fences shard %s at its latest epoch (seed %s)", id, seed)
                    .isEqualTo(epoch(id));
            assertThat(new ManifestStore(store, id).readLatest().orElseThrow().sstables())
                    .as("shard %s lists no SSTables (seed %s)", id, seed)
                    .isEmpty();
        }
        Map<UUID, Long> merged = f.merged();
        for (UUID id : ids) {
            assertThat(merged.getOrDefault(id, 0L))
                    .as("shard %s's merge progress is the target's (seed %s)", id, seed)
                    .isEqualTo(mergedAtTarget.getOrDefault(id, 0L));
        }
        for (List<ShardDescriptor> states : retained) {
            int b = random.nextInt(states.size());
            ShardDescriptor state = states.get(b).withShardId(ids.get(b));
            assertThatThrownBy(() -> ShardRestore.restore(ctx, state, f.placement(b)))
                    .as("a checkpoint of before the rollback (seed %s)", seed)
                    .hasMessageContaining("was rolled back to version " + target)
                    .hasMessageContaining("this checkpoint was taken before");
            counts.refusedStaleRestores++;
        }
    }

    private RollbackRun rollback(RollbackRun.Hook hook) {
        return new RollbackRun(
                new TableLocation(store, f.uri, Map.of()),
                f.allocator,
                RollbackRun.claimant("simulation"),
                System::currentTimeMillis,
                hook);
    }

    private long epoch(UUID shard) {
        return new ManifestStore(store, shard)
                .readLatest()
                .map(ShardManifest::writerEpoch)
                .orElse(0L);
    }

    private boolean sameColumns(long version) {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of());
                Dataset at = base.checkoutVersion(version)) {
            return at.getSchema().getFields().stream()
                    .map(Field::getName)
                    .toList()
                    .equals(base.getSchema().getFields().stream()
                            .map(Field::getName)
                            .toList());
        }
    }

    private List<Long> versions() {
        try (Dataset base = LanceTables.openDataset(f.allocator, f.uri, Map.of())) {
            return base.listVersions().stream().map(Version::getId).sorted().toList();
        }
    }

    private static String at(RollbackRun.Point point, int claim) {
        return point == RollbackRun.Point.CLAIM ? "after claim " + claim : "at " + point;
    }
}
