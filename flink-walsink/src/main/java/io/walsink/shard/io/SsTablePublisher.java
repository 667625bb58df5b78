package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manifest side of one shard writer: the latest manifest it read or wrote, the SSTables
 * written but not yet published, and the one manifest update in flight. {@link
 * #publishedGeneration()} is derived from {@link #manifest()}, so that version lists exactly the
 * SSTables published so far (less those merged into the base table, which each update drops).
 */
@Internal
public final class SsTablePublisher {
    private static final Logger LOG =
            LoggerFactory.getLogger("io.walsink.shard.ShardWriter"); // the writer's log category

    private final UUID shardId;
    private final long epoch;
    private final ManifestStore manifests;
    private final ShardHealth health;
    private final ShardStats stats;
    private final Supplier<MergeProgress> mergeProgress;
    private final MergedDrops drops;
    private final List<WrittenSsTable> unpublished = new ArrayList<>();
    private ShardManifest manifest;
    private ManifestUpdate inFlight;
    private long baseVersion;
    private long basedAtNanos = System.nanoTime();

    public SsTablePublisher(
            UUID shardId,
            ShardManifest claimed,
            ManifestStore manifests,
            ShardHealth health,
            ShardStats stats,
            Supplier<MergeProgress> mergeProgress,
            MergedDrops drops) {
        this.shardId = shardId;
        this.epoch = claimed.writerEpoch();
        this.manifest = claimed;
        this.manifests = manifests;
        this.health = health;
        this.stats = stats;
        this.mergeProgress = mergeProgress;
        this.drops = drops;
    }

    public ShardManifest manifest() {
        return manifest;
    }

    /**
     * The highest generation the manifest lists (0: none). Generations merged into the base table
     * and dropped from the list no longer count; a restore takes its SSTables from the pinned
     * version's list, which agrees with this by construction.
     */
    public long publishedGeneration() {
        return manifest.sstables().stream().mapToLong(SsTable::generation).max().orElse(0);
    }

    /**
     * The base table version whose merge progress the current manifest's list was cut by: every
     * generation it dropped as merged is merged in that version, and every merge in that version is
     * of a generation published before it. A restore that must roll merged rows back resets the
     * shard's rows in the base table to that version (0: unknown, nothing was read).
     */
    public long baseVersion() {
        return baseVersion;
    }

    public void basedOn(MergeProgress progress) {
        if (progress.known()) {
            baseVersion = progress.baseVersion();
            // When the read began, not now: the manifest write and the wait for this thread since
            // would make the version look younger than it is.
            basedAtNanos = progress.readStartedNanos();
        }
    }

    /** When the read of {@link #baseVersion()} began (System.nanoTime). */
    public long basedAtNanos() {
        return basedAtNanos;
    }

    /**
     * A newer base version read while nothing was published: as good a base for the current list,
     * since every merge it holds is of a generation published before it was read.
     */
    public void basedOnNewer(long version, long readStartedNanos) {
        if (version >= baseVersion) {
            baseVersion = version;
            basedAtNanos = readStartedNanos;
        }
    }

    public List<WrittenSsTable> unpublished() {
        return List.copyOf(unpublished);
    }

    public boolean inFlight() {
        return inFlight != null;
    }

    void written(WrittenSsTable sstable) {
        unpublished.add(sstable);
    }

    public void restored(List<WrittenSsTable> stillUnpublished) {
        unpublished.clear();
        unpublished.addAll(stillUnpublished);
    }

    /**
     * See {@link io.walsink.shard.ShardWriter#beginPublish}.
     *
     * @param lastSeen the last WAL position the writer used
     */
    public Optional<ManifestUpdate> begin(long upToGeneration, long lastSeen) {
        if (inFlight != null) {
            return Optional.empty();
        }
        List<WrittenSsTable> batch = unpublished.stream()
                .filter(t -> t.generation() <= upToGeneration)
                .toList();
        if (batch.isEmpty()) {
            return Optional.empty();
        }
        List<SsTable> next = new ArrayList<>(manifest.sstables());
        for (WrittenSsTable t : batch) {
            next.add(t.toManifestEntry());
        }
        inFlight = new ManifestUpdate(
                manifests,
                manifest,
                epoch,
                next,
                batch.get(batch.size() - 1).lastWalPosition(),
                lastSeen,
                batch,
                mergeProgress,
                drops::dropThrough);
        return Optional.of(inFlight);
    }

    /**
     * Writes a manifest with exactly {@code sstables} and {@code replayAfter}, inline (restore):
     * merged SSTables leave it at once, as at a claim, since a restored list may name SSTables
     * garbage collection removed after their merge.
     */
    public void writeInline(List<SsTable> sstables, long replayAfter, long lastSeen) {
        if (inFlight != null) {
            throw new IllegalStateException("a manifest update is in flight");
        }
        inFlight = new ManifestUpdate(
                manifests,
                manifest,
                epoch,
                sstables,
                replayAfter,
                lastSeen,
                List.of(),
                mergeProgress,
                MergedDrops::immediate);
        inFlight.run();
        complete(inFlight);
    }

    /** See {@link io.walsink.shard.ShardWriter#completeManifestUpdate}. */
    public void complete(ManifestUpdate update) {
        update.checkHandedBack(inFlight);
        inFlight = null;
        health.check();
        if (update.fencedBy() > 0) {
            throw health.poison(
                    Reason.FENCED,
                    "the shard manifest names epoch " + update.fencedBy() + " (ours is " + epoch + ")",
                    null);
        }
        if (update.failure() != null) {
            throw health.poison(Reason.PERSISTENCE_FAILURE, "manifest write failed", update.failure());
        }
        manifest = update.written();
        basedOn(update.progress()); // an unread progress dropped nothing: the earlier version still holds
        stats.manifestVersionsWritten++;
        if (update.droppedMerged() > 0) {
            LOG.info(
                    "Shard {} dropped {} SSTables merged into the base table from its manifest (version {})",
                    shardId,
                    update.droppedMerged(),
                    manifest.version());
        }
        List<WrittenSsTable> published = update.publishing();
        if (!published.isEmpty()) {
            unpublished.removeAll(published);
            WrittenSsTable last = published.get(published.size() - 1);
            stats.sstablesPublished += published.size();
            LOG.info(
                    "Shard {} published SSTables through generation {} (manifest version {}, replay after {})",
                    shardId,
                    last.generation(),
                    manifest.version(),
                    manifest.replayAfterWalEntryPosition());
        }
    }
}
