package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ManifestVersionTakenException;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import java.util.List;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * Writing manifest version + 1 with a new SSTable list and {@code replay_after}: a publication,
 * or the rollback of a restore. Prepared on the owner thread, {@link #run()} on any thread,
 * completed on the owner thread. The first attempt builds on the manifest the writer last wrote
 * or claimed, without reading it: only a claim by another writer can have written since, and it
 * took the version after that one, so the put-if-absent fails. Then, and after every lost race,
 * the update reads the latest version, stops if a higher epoch claimed the shard, and tries again
 * on it.
 */
@Internal
public final class ManifestUpdate extends ShardTask {
    static final int MAX_ATTEMPTS = 16;

    private final ManifestStore manifests;
    private final ShardManifest own;
    private final long epoch;
    final List<SsTable> sstables;
    final long replayAfter;
    private final long lastSeen;
    final List<WrittenSsTable> publishing;
    private final Supplier<MergeProgress> mergeProgress;
    private final LongUnaryOperator dropThrough;
    private volatile MergeProgress progress = MergeProgress.UNKNOWN;
    private volatile int dropped;
    private volatile ShardManifest written;
    private volatile long fencedBy;

    ManifestUpdate(
            ManifestStore manifests,
            ShardManifest own,
            long epoch,
            List<SsTable> sstables,
            long replayAfter,
            long lastSeen,
            List<WrittenSsTable> publishing,
            Supplier<MergeProgress> mergeProgress,
            LongUnaryOperator dropThrough) {
        this.manifests = manifests;
        this.own = own;
        this.mergeProgress = mergeProgress;
        this.dropThrough = dropThrough;
        this.epoch = epoch;
        this.sstables = List.copyOf(sstables);
        this.replayAfter = replayAfter;
        this.lastSeen = lastSeen;
        this.publishing = List.copyOf(publishing);
    }

    @Override
    void execute() {
        long afterListed =
                sstables.stream().mapToLong(SsTable::generation).max().orElse(0) + 1;
        // SSTables a compactor merged into the base table leave the list (their rows are in the base
        // table, and readers skip them anyway), when dropThrough lets them (MergedDrops). Read once,
        // before the first attempt: a generation merged later is dropped by a later update. The
        // SSTables being published are never merged: a compactor merges only what a manifest lists.
        progress = mergeProgress.get();
        long leaving = dropThrough.applyAsLong(progress.mergedThrough());
        List<SsTable> kept =
                sstables.stream().filter(t -> t.generation() > leaving).toList();
        dropped = sstables.size() - kept.size();
        for (int attempt = 1; ; attempt++) {
            ShardManifest latest = attempt == 1
                    ? own
                    : manifests
                            .readLatest()
                            .orElseThrow(() ->
                                    new IllegalStateException("shard " + manifests.shardId() + " has no manifest"));
            if (latest.writerEpoch() > epoch) {
                fencedBy = latest.writerEpoch();
                return;
            }
            // A rollback lists fewer SSTables, but the counter never goes back: a generation
            // once published must not name a different SSTable later.
            long nextGeneration = Math.max(latest.currentGeneration(), afterListed);
            ShardManifest next = latest.toBuilder()
                    .sstables(kept)
                    .replayAfterWalEntryPosition(replayAfter)
                    .currentGeneration(nextGeneration)
                    .walEntryPositionLastSeen(Math.max(latest.walEntryPositionLastSeen(), lastSeen))
                    .build();
            try {
                written = manifests.writeNext(latest, next);
                return;
            } catch (ManifestVersionTakenException lost) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw lost;
                }
            }
        }
    }

    @Override
    String describe() {
        return "manifest update";
    }

    /** Generations this update publishes (empty for a rollback). */
    public List<WrittenSsTable> publishing() {
        return publishing;
    }

    ShardManifest written() {
        return written;
    }

    /** How many listed SSTables this update left out because they are merged into the base table. */
    int droppedMerged() {
        return dropped;
    }

    /** The merge progress this update dropped merged SSTables by ({@link MergeProgress#UNKNOWN}: none read). */
    MergeProgress progress() {
        return progress;
    }

    /** The epoch that fenced us, or 0. */
    long fencedBy() {
        return fencedBy;
    }
}
