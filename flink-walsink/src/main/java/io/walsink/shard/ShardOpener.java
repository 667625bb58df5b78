package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.RollbackRecords;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardClaimer;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.io.MergeProgress;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectStore;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a shard for writing: claim a new epoch, fence predecessors with a sentinel, replay.
 *
 * <p>Everything that can be validated locally already was, when the {@link TableContext} was
 * built; the claim is the first side effect.
 *
 * <p>{@link #restoreClaimed} opens a claimed shard "as of" a checkpoint's descriptor, as {@code
 * io.walsink.recovery.ShardRestore} decided. WAL entries written after the descriptor's durable
 * position are orphans of a failed attempt (the source sends their rows again), so they must never
 * be replayed: the rows of the descriptor's range are appended again after the sentinel and a
 * manifest version moves {@code replay_after} to the sentinel, with the state's SSTables. Any later
 * replay, by us or by Lance, then sees exactly the checkpoint's state followed by new rows.
 */
@Internal
public final class ShardOpener {
    private static final Logger LOG = LoggerFactory.getLogger(ShardOpener.class);

    private ShardOpener() {}

    /** Opens a shard and replays everything after {@code replay_after} (plain MemWAL recovery). */
    public static ShardWriter open(TableContext ctx, UUID shardId, int bucket, ShardPlacement placement) {
        MergeProgress progress = ctx.mergeProgress(shardId);
        if (!progress.known()) {
            // Checkpoints of this shard would record no base version, and a restore across merges
            // could not reset the shard's rows: fail before the claim, Flink retries.
            throw new IllegalStateException("cannot read the merge progress of shard " + shardId
                    + " from the base table " + ctx.table().uri()
                    + "; a shard opens only once the base table version its state builds on is known (see the"
                    + " warning above)");
        }
        RollbackRecords rollbacks = new RollbackRecords(ctx.store());
        rollbacks.requireNoneUnderWay(ctx.table().uri(), shardId);
        Claimed c = claim(ctx, shardId, placement, progress.mergedThrough());
        // Checked again after the claim: a rollback that claimed before us re-claims after us, and
        // one that finished meanwhile committed a base version our progress read may predate.
        rollbacks.requireNoneUnderWay(ctx.table().uri(), shardId);
        long newBase = rollbacks.readDone().map(RollbackRecords.Done::newBase).orElse(0L);
        if (progress.baseVersion() < newBase) {
            throw new IllegalStateException(
                    "shard " + shardId + " is not opened: table " + ctx.table().uri()
                            + " was rolled back while it opened (base version " + newBase + "); opening again");
        }
        // Replay starts after replay_after, whatever the SSTable list holds: a compactor may have
        // emptied it (Lance PR #6767 fixed a writer that took an empty list for a fresh shard and
        // replayed merged rows again).
        ShardWriter writer =
                new ShardWriter(ctx, shardId, bucket, c.manifest, c.manifests, c.wal, c.tip, c.nextGeneration);
        writer.checkpoint().basedOn(progress);
        try {
            new WalReplay(ctx, c.wal, c.manifests, writer)
                    .replay(c.manifest.replayAfterWalEntryPosition() + 1, c.lastBeforeSentinel, true, true);
        } catch (RuntimeException e) {
            writer.close();
            throw e;
        }
        LOG.info(
                "Opened shard {} (bucket {}) with epoch {}: replayed {} entries / {} rows ({} SSTables written"
                        + " to stay within the unflushed budget), next WAL position {}",
                shardId,
                bucket,
                writer.epoch(),
                writer.stats().replayedEntries(),
                writer.stats().replayedRows(),
                writer.stats().replayFlushes(),
                writer.nextPosition());
        return writer;
    }

    /**
     * Replays the state's WAL range into a writer of the claimed shard and publishes {@code target}:
     * the last step of every restore ({@code io.walsink.recovery.ShardRestore} decides the target).
     *
     * @param reset whether the shard's rows in the base table were reset: the claimed manifest's
     *     replay_after may then count on SSTables the claim dropped as merged, whose rows the reset
     *     took out of the base table, so the state's rows go after the sentinel in every case
     */
    public static ShardWriter restoreClaimed(
            TableContext ctx,
            ShardDescriptor asOf,
            Claimed c,
            List<SsTable> target,
            MergeProgress based,
            boolean reset) {
        boolean orphans = c.lastBeforeSentinel > asOf.durablePosition();
        boolean laterSsTables = !paths(target).containsAll(paths(c.manifest.sstables()));
        boolean rollback = orphans || laterSsTables || reset;
        boolean republish = !paths(c.manifest.sstables()).containsAll(paths(target));
        // Not below the claimed manifest's counter: generations of rolled-back SSTables are not reused.
        long firstGeneration = Math.max(
                Math.max(asOf.currentGeneration(), c.nextGeneration),
                target.stream().mapToLong(SsTable::generation).max().orElse(0) + 1);

        ShardWriter writer = new ShardWriter(
                ctx, asOf.shardId(), asOf.bucket(), c.manifest, c.manifests, c.wal, c.tip, firstGeneration);
        writer.checkpoint().basedOn(based);
        try {
            new WalReplay(ctx, c.wal, c.manifests, writer)
                    .replay(asOf.flushedThrough() + 1, asOf.durablePosition(), !rollback);
            if (rollback) {
                // Rows first, then the manifest: a reader that follows the new replay_after must
                // find the checkpoint's rows after the sentinel already.
                writer.appendAllPending();
                writer.checkpoint().writeManifest(target, c.sentinel);
                writer.checkpoint().restored(writer.durablePosition(), List.of());
                LOG.warn(
                        "Restored shard {} as of epoch {}: rolled back {} (orphan WAL entries {}..{}, "
                                + "SSTables now {}); "
                                + "checkpointed rows re-appended after sentinel {}",
                        asOf.shardId(),
                        asOf.epoch(),
                        orphans ? "orphan entries" : laterSsTables ? "later SSTables" : "merged rows",
                        asOf.durablePosition() + 1,
                        c.lastBeforeSentinel,
                        paths(target),
                        c.sentinel);
            } else if (republish) {
                writer.checkpoint().writeManifest(target, asOf.flushedThrough());
                writer.checkpoint().restored(Math.max(asOf.durablePosition(), c.sentinel), List.of());
                LOG.info("Restored shard {}: republished SSTables {}", asOf.shardId(), paths(target));
            } else {
                writer.checkpoint().restored(Math.max(asOf.durablePosition(), c.sentinel), List.of());
            }
        } catch (RuntimeException e) {
            writer.close();
            throw e;
        }
        LOG.info(
                "Restored shard {} (bucket {}) with epoch {}: replayed {} entries / {} rows, next WAL position {}",
                asOf.shardId(),
                asOf.bucket(),
                writer.epoch(),
                writer.stats().replayedEntries(),
                writer.stats().replayedRows(),
                writer.nextPosition());
        return writer;
    }

    public static Set<String> paths(List<SsTable> sstables) {
        Set<String> paths = new HashSet<>();
        for (SsTable t : sstables) {
            paths.add(t.path());
        }
        return paths;
    }

    /**
     * @param nextGeneration the lowest generation never given out: above the claimed manifest's
     *     counter and above every SSTable folder of the shard. A writer writes an SSTable before its
     *     manifest counts the generation; if its attempt fails before publishing, the folder (and a
     *     checkpoint naming it as unpublished) is the only trace, and a restore of an older
     *     checkpoint must not give the number out again: merge progress is a number, so two
     *     generations of one number would be taken for each other.
     */
    public record Claimed(
            ManifestStore manifests,
            WalLog wal,
            ShardManifest manifest,
            long sentinel,
            long lastBeforeSentinel,
            long tip,
            long nextGeneration) {}

    /**
     * Claims the shard for a new epoch (SSTables at or below {@code mergedThrough} dropped from its
     * list) and writes the sentinel that fences its predecessors; the writer continues the claimed
     * manifest's state.
     */
    public static Claimed claim(TableContext ctx, UUID shardId, ShardPlacement placement, long mergedThrough) {
        return claim(ctx, shardId, placement, mergedThrough, -1);
    }

    /**
     * As {@link #claim(TableContext, UUID, ShardPlacement, long)}, for a writer restored from a state
     * whose generations go through {@code coveredThrough}: the numbers between it and the first one
     * given out are recorded as passed over ({@link SkippedGenerations}).
     */
    public static Claimed claimAsOf(
            TableContext ctx, UUID shardId, ShardPlacement placement, long mergedThrough, long coveredThrough) {
        return claim(ctx, shardId, placement, mergedThrough, coveredThrough);
    }

    private static Claimed claim(
            TableContext ctx, UUID shardId, ShardPlacement placement, long mergedThrough, long coveredThrough) {
        ManifestStore manifests = new ManifestStore(ctx.store(), shardId);
        WalLog wal = new WalLog(ctx.store(), shardId, ctx.codec());
        ShardManifest claimed = new ShardClaimer(manifests).claim(placement, mergedThrough);
        ctx.store().removeLeftovers(TableLayout.shardFolder(shardId)); // temporary files of killed writers
        long epoch = claimed.writerEpoch();
        long next = Math.max(claimed.currentGeneration(), highestSsTableFolder(ctx.store(), shardId) + 1);
        long covered = coveredThrough >= 0 ? coveredThrough : claimed.currentGeneration() - 1;
        // Before the state can be checkpointed under the new epoch, and so before the lineage counts
        // these numbers as its own.
        new SkippedGenerations(ctx.store()).claimed(shardId, covered + 1, next - 1, mergedThrough);
        long tip = wal.findTip(claimed.walEntryPositionLastSeen());
        if (epoch < 2) {
            return new Claimed(manifests, wal, claimed, 0, tip - 1, tip, next);
        }
        long sentinel = writeSentinel(manifests, wal, ctx.codec().encodeSentinel(epoch), epoch, tip);
        return new Claimed(manifests, wal, claimed, sentinel, sentinel - 1, sentinel + 1, next);
    }

    /** The highest generation among the shard's SSTable folders (one delimited listing); 0 if none. */
    public static long highestSsTableFolder(ObjectStore store, UUID shardId) {
        String shardFolder = TableLayout.shardFolder(shardId);
        long highest = 0;
        for (String folder : store.listFolders(shardFolder)) {
            String name = folder.substring(shardFolder.length(), folder.length() - 1);
            highest = Math.max(highest, TableLayout.ssTableGeneration(name).orElse(0));
        }
        return highest;
    }

    /**
     * A predecessor's next append collides with the sentinel and, re-reading the manifest, finds
     * itself fenced. If a predecessor appended at the tip meanwhile, the sentinel goes after it.
     * Returns its position.
     */
    public static long writeSentinel(ManifestStore manifests, WalLog wal, byte[] sentinel, long epoch, long tip) {
        UUID shardId = manifests.shardId();
        for (long position = tip; ; position++) {
            try {
                wal.append(position, sentinel);
                return position;
            } catch (ObjectAlreadyExistsException taken) {
                long stored =
                        manifests.readLatest().map(ShardManifest::writerEpoch).orElse(0L);
                if (stored > epoch) {
                    throw new ShardPoisonedException(
                            shardId.toString(),
                            Reason.FENCED,
                            "a writer with epoch " + stored + " claimed the shard while we opened it with " + epoch,
                            taken);
                }
            }
        }
    }
}
