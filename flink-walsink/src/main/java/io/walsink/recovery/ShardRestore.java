package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.RollbackRecords;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.SkippedGenerations;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.MergeProgress;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.shard.io.SsTableFolder;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.ObjectNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores a shard as of a checkpoint's descriptor, whatever the compactor merged since: the
 * protocol of docs/architecture.md, "The restore protocol". It decides from durable facts alone
 * ({@link MergesSinceCheckpoint}) whether the shard's rows in the base table must be reset; if so it
 * records the intent ({@link ShardResets}), resets them ({@link BucketRowsReset}), records the reset,
 * forgets the rolled-back merges ({@link MergeJournal}), copies the state's SSTables above the merge
 * progress ({@link SsTableCopy}) and lets {@link ShardOpener#restoreClaimed} replay and publish;
 * then removes the intent. Each side effect is preceded by a check that no newer epoch claimed the
 * shard.
 */
@Internal
public final class ShardRestore {
    private static final Logger LOG = LoggerFactory.getLogger(ShardRestore.class);

    private ShardRestore() {}

    /** As {@link #restore(TableContext, ShardDescriptor, ShardPlacement, MaintenanceExclusion)}, with no maintenance running meanwhile. */
    public static ShardWriter restore(TableContext ctx, ShardDescriptor asOf, ShardPlacement placement) {
        return restore(ctx, asOf, placement, MaintenanceExclusion.NONE);
    }

    /**
     * Opens a shard as of a checkpoint's descriptor, rolling back anything written after it. When
     * the compactor merged rows the checkpoint does not hold ({@link MergesSinceCheckpoint}), the
     * shard's rows in the base table are reset to the version the checkpoint builds on and its
     * SSTables are published again above the base table's merge progress, so every reader sees the
     * checkpoint's state.
     *
     * @param exclusion held while SSTables are rolled back or rows reset, so that no compactor
     *     merges what the restore takes away
     * @throws FormatException naming the object, before the shard is claimed, if the manifest
     *     version the descriptor pins or an SSTable of its state is missing; a
     *     {@link GarbageCollectedException} naming the retention if garbage collection removed
     *     the version, WAL entries or base table version the descriptor needs
     */
    public static ShardWriter restore(
            TableContext ctx, ShardDescriptor asOf, ShardPlacement placement, MaintenanceExclusion exclusion) {
        Objects.requireNonNull(asOf, "asOf");
        // Checked before the claim: a restore that cannot succeed must not fence the running writer.
        ManifestStore manifests = new ManifestStore(ctx.store(), asOf.shardId());
        RollbackRecords rollbacks = new RollbackRecords(ctx.store());
        rollbacks.requireRestorable(ctx.table().uri(), asOf.shardId(), asOf.epoch(), asOf.baseVersion());
        requireNotCollected(manifests, new WalLog(ctx.store(), asOf.shardId(), ctx.codec()), asOf);
        List<SsTable> state = new ArrayList<>(published(manifests, asOf));
        for (WrittenSsTable t : asOf.unpublished()) {
            state.add(t.toManifestEntry());
        }
        MergesSinceCheckpoint seen = MergesSinceCheckpoint.examine(ctx, asOf, state);
        requireSsTables(ctx, asOf.shardId(), resets(ctx, asOf, seen) ? state : unmerged(state, seen));
        ShardOpener.Claimed c = ShardOpener.claimAsOf(
                ctx, asOf.shardId(), placement, seen.progress().mergedThrough(), asOf.coveredGeneration());
        // Again after the claim: a rollback that finished since the check above is caught here, one
        // that claims after us re-claims when it sees our epoch (docs/architecture.md).
        rollbacks.requireRestorable(ctx.table().uri(), asOf.shardId(), asOf.epoch(), asOf.baseVersion());
        // Read after the claim: every claim that may have counted a number of this state as its own
        // recorded it before, or is fenced by ours.
        List<SkippedGenerations.Range> skipped = new SkippedGenerations(ctx.store()).read(asOf.shardId());
        boolean laterSsTables = !ShardOpener.paths(state)
                .containsAll(ShardOpener.paths(c.manifest().sstables()));
        boolean exclusive = seen.mergedPast() || laterSsTables || SkippedGenerations.anySkipped(skipped, state);
        try (MaintenanceExclusion.Held held =
                exclusive ? exclusion.hold("restore of shard " + asOf.shardId()) : () -> {}) {
            // Under the exclusion, what the compactor merged no longer moves.
            MergesSinceCheckpoint merges = exclusive ? MergesSinceCheckpoint.examine(ctx, asOf, state) : seen;
            if (!resets(ctx, asOf, merges)) {
                List<SsTable> unmerged = unmerged(state, merges);
                if (SkippedGenerations.anySkipped(skipped, unmerged)) {
                    unmerged = republishUnderNewNumbers(ctx, asOf, c, unmerged, skipped, merges.progress());
                }
                return ShardOpener.restoreClaimed(ctx, asOf, c, unmerged, merges.progress(), false);
            }
            requireSsTables(ctx, asOf.shardId(), state);
            return resetAndRestore(ctx, asOf, c, state, merges);
        }
    }

    /**
     * Resets the shard's rows in the base table to the checkpoint's base version and publishes its
     * SSTables again above the merge progress. Idempotent: the restore intent is recorded before the
     * first side effect and removed only once the restored manifest is durable, so a restore that
     * fails anywhere in between leaves the record, and the next restore of the shard resets again.
     * Every side effect is preceded by a check that no newer writer claimed the shard: a fenced
     * restore touches nothing (its commits on the base table are fenced by lance-core besides).
     */
    private static ShardWriter resetAndRestore(
            TableContext ctx,
            ShardDescriptor asOf,
            ShardOpener.Claimed c,
            List<SsTable> state,
            MergesSinceCheckpoint merges) {
        UUID shard = asOf.shardId();
        Runnable owner = () -> requireOwner(c, shard);
        owner.run();
        ShardResets resets = new ShardResets(ctx.store());
        resets.begin(shard, c.manifest().writerEpoch(), asOf.baseVersion());
        MergeProgress reset = new BucketRowsReset(ctx, shard, asOf.bucket(), owner).resetTo(asOf.baseVersion());
        if (!reset.known()) {
            throw new IllegalStateException(
                    "cannot read the base table " + ctx.table().uri() + " after resetting the rows of shard " + shard
                            + "; the restore is retried (see the warning above)");
        }
        owner.run();
        resets.resetAt(shard, reset.baseVersion());
        merges.forgetForeign(ctx, shard);
        owner.run();
        List<SsTable> renumbered = renumber(ctx, asOf, c, state, reset);
        LOG.warn(
                "Restoring shard {}: {}; its rows in the base table were reset to base version {} and its SSTables"
                        + " published again as {}",
                shard,
                merges.reason(),
                asOf.baseVersion(),
                renumbered);
        ShardWriter writer = ShardOpener.restoreClaimed(ctx, asOf, c, renumbered, reset, true);
        try {
            resets.finish(shard);
        } catch (RuntimeException e) {
            writer.close();
            throw e;
        }
        return writer;
    }

    /**
     * The state's unmerged SSTables, those from the first one whose number a claim passed over
     * onwards copied under new numbers (in order, so they stay in generation order): the lineage of
     * that claim counts the number as its own, so the base table's merge progress must never pass
     * it because these rows were merged.
     */
    private static List<SsTable> republishUnderNewNumbers(
            TableContext ctx,
            ShardDescriptor asOf,
            ShardOpener.Claimed c,
            List<SsTable> unmerged,
            List<SkippedGenerations.Range> skipped,
            MergeProgress progress) {
        int first = 0;
        while (!SkippedGenerations.anySkipped(skipped, List.of(unmerged.get(first)))) {
            first++;
        }
        requireOwner(c, asOf.shardId());
        List<SsTable> kept = unmerged.subList(0, first);
        List<SsTable> copies = renumber(ctx, asOf, c, unmerged.subList(first, unmerged.size()), progress);
        LOG.info(
                "Restoring shard {}: another restore passed over the generation numbers of its SSTables {};"
                        + " publishing them as {}",
                asOf.shardId(),
                unmerged.subList(first, unmerged.size()).stream()
                        .map(SsTable::path)
                        .toList(),
                copies.stream().map(SsTable::path).toList());
        List<SsTable> target = new ArrayList<>(kept);
        target.addAll(copies);
        return target;
    }

    /** Fails as fenced if a writer of a newer epoch claimed the shard since {@code c}. */
    private static void requireOwner(ShardOpener.Claimed c, UUID shard) {
        long ours = c.manifest().writerEpoch();
        long stored = c.manifests().readLatest().map(ShardManifest::writerEpoch).orElse(0L);
        if (stored > ours) {
            throw new ShardPoisonedException(
                    shard.toString(),
                    Reason.FENCED,
                    "a writer with epoch " + stored + " claimed the shard while we restored it with " + ours
                            + "; this restore stops before touching the base table",
                    null);
        }
    }

    /** Whether the restore resets the shard's rows in the base table; warns when it would but cannot. */
    private static boolean resets(TableContext ctx, ShardDescriptor asOf, MergesSinceCheckpoint merges) {
        if (!merges.mergedPast()) {
            return false;
        }
        if (asOf.baseVersion() > 0 && BucketRowsReset.possible(ctx)) {
            return true;
        }
        LOG.warn(
                "Restoring shard {}: {}; merged rows cannot be rolled back and stay in the base table ({})",
                asOf.shardId(),
                merges.reason(),
                asOf.baseVersion() == 0
                        ? "the checkpoint was taken by an earlier release, which did not record its base table version"
                        : "the table has no primary key");
        return false;
    }

    /** The state's SSTables the base table has not merged. */
    private static List<SsTable> unmerged(List<SsTable> state, MergesSinceCheckpoint merges) {
        long merged = merges.progress().mergedThrough();
        return state.stream().filter(t -> t.generation() > merged).toList();
    }

    /**
     * Copies of the state's SSTables, in order, under generations above anything the shard ever gave
     * out and above the reset base table's merge progress (which does not go back).
     */
    private static List<SsTable> renumber(
            TableContext ctx, ShardDescriptor asOf, ShardOpener.Claimed c, List<SsTable> state, MergeProgress reset) {
        long next = Math.max(Math.max(asOf.currentGeneration(), c.nextGeneration()), reset.mergedThrough() + 1);
        List<SsTable> copies = new ArrayList<>();
        for (SsTable t : state) {
            long generation = next++;
            String path = SsTableCopy.copy(ctx.store(), asOf.shardId(), t.path(), generation);
            copies.add(new SsTable(generation, path, t.inMemoryBytes(), t.physicalRows(), t.primaryKeyBytes()));
        }
        return copies;
    }

    /**
     * Fails if garbage collection removed, or is removing, what restoring {@code asOf} reads: the
     * manifest version it pins or WAL entries of the range it replays. The shard's {@link GcFloor}
     * says so whether or not the objects are gone yet; without one nothing was collected.
     *
     * @throws GarbageCollectedException naming the object and the retention
     */
    private static void requireNotCollected(ManifestStore manifests, WalLog wal, ShardDescriptor asOf) {
        GcFloor floor = manifests.readFloor();
        if (asOf.pinned() && floor.collectedVersion(asOf.manifestVersion())) {
            throw new GarbageCollectedException(
                    manifests.location(manifests.versionKey(asOf.manifestVersion())),
                    "manifest version " + asOf.manifestVersion() + " of shard " + asOf.shardId()
                            + ", which the checkpoint being restored pins, was " + floor.describe()
                            + "; the checkpoint is older than the retention, restore a newer one");
        }
        long first = asOf.flushedThrough() + 1;
        if (first <= asOf.durablePosition() && floor.collectedPosition(first)) {
            throw new GarbageCollectedException(
                    manifests.location(wal.key(first)),
                    "WAL entry " + first + " of shard " + asOf.shardId() + ", in the range " + first + ".."
                            + asOf.durablePosition() + " the checkpoint being restored replays, was "
                            + floor.describe() + "; the checkpoint is older than the retention, restore a newer one");
        }
    }

    /**
     * The SSTables published as of {@code asOf}: the list of the manifest version it pins, which
     * is immutable. Not the current manifest filtered by generation: after a restore of an older
     * checkpoint, the current manifest no longer lists what this one had published.
     */
    private static List<SsTable> published(ManifestStore manifests, ShardDescriptor asOf) {
        if (!asOf.pinned()) {
            // Serializer version 1 (an earlier release) or the empty state; as that release did.
            return manifests.readLatest().map(ShardManifest::sstables).orElse(List.of()).stream()
                    .filter(t -> t.generation() <= asOf.publishedGeneration())
                    .toList();
        }
        String where = manifests.location(manifests.versionKey(asOf.manifestVersion()));
        ShardManifest pinned;
        try {
            pinned = manifests.read(asOf.manifestVersion());
        } catch (ObjectNotFoundException e) {
            throw new FormatException(
                    where,
                    "manifest version " + asOf.manifestVersion() + " of shard " + asOf.shardId()
                            + " is missing, but the checkpoint being restored takes its SSTables from it",
                    e);
        }
        long last =
                pinned.sstables().stream().mapToLong(SsTable::generation).max().orElse(0);
        // Fewer is fine: SSTables the base table merged leave the list (a writer's drop, or
        // migrate-shard-ids rewriting an earlier release's versions), and their rows are in the base.
        if (last > asOf.publishedGeneration()) {
            throw new FormatException(
                    where,
                    "shard " + asOf.shardId() + ": this version lists SSTables through generation " + last
                            + ", the checkpoint being restored published only through "
                            + asOf.publishedGeneration(),
                    null);
        }
        return pinned.sstables();
    }

    /** Every SSTable of the state being restored must still be readable (a Lance dataset has a _versions/ manifest). */
    private static void requireSsTables(TableContext ctx, UUID shardId, List<SsTable> sstables) {
        for (SsTable t : sstables) {
            String versions = SsTableFolder.key(shardId, t.path()) + "_versions/";
            if (ctx.store().list(versions, null, 1).objects().isEmpty()) {
                throw new FormatException(
                        ctx.location().ssTableUri(shardId, t.path()),
                        "SSTable " + t.path() + " (generation " + t.generation() + ") of shard " + shardId
                                + " is missing, but the checkpoint being restored includes it",
                        null);
            }
        }
    }
}
