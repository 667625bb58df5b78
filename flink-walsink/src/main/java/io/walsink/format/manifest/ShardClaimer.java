package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes ownership of a shard by writing the next manifest version with {@code writer_epoch + 1}
 * (a brand-new shard gets version 1, epoch 1, generation 1). Every later manifest and WAL entry
 * of a lower epoch then loses against ours, which is what fences a previous writer.
 */
@Internal
public final class ShardClaimer {
    private static final Logger LOG = LoggerFactory.getLogger(ShardClaimer.class);
    /** Lost races against manifest updates of the old writer (not claims) before giving up. */
    static final int MAX_ATTEMPTS = 16;

    private final ManifestStore manifests;

    public ShardClaimer(ManifestStore manifests) {
        this.manifests = Objects.requireNonNull(manifests, "manifests");
    }

    /**
     * @param placement recorded if the shard is new; checked against the stored one otherwise
     * @return the manifest that now names our epoch
     * @throws ShardSealedException if the shard is sealed
     * @throws EpochConflictException if a peer claimed an epoch at least as high as ours
     * @throws ShardClaimException if the stored placement contradicts {@code placement}
     */
    public ShardManifest claim(ShardPlacement placement) {
        return claim(placement, 0);
    }

    /**
     * As {@link #claim(ShardPlacement)}, leaving SSTables of generation {@code <= mergedThrough} out
     * of the claimed manifest: a compactor merged them into the base table, which holds their rows
     * now. {@code current_generation} is kept, so their generations are never given out again.
     */
    public ShardManifest claim(ShardPlacement placement, long mergedThrough) {
        Optional<ShardManifest> latest = manifests.readLatest();
        for (int attempt = 1; ; attempt++) {
            long epoch = latest.map(m -> m.writerEpoch() + 1).orElse(1L);
            try {
                ShardManifest claimed = latest.isEmpty()
                        ? manifests.writeFirst(firstManifest(placement))
                        : manifests.writeNext(latest.get(), reclaimed(latest.get(), placement, epoch, mergedThrough));
                LOG.info(
                        "Claimed shard {} with writer epoch {} (manifest version {})",
                        manifests.shardId(),
                        epoch,
                        claimed.version());
                return claimed;
            } catch (ManifestVersionTakenException lost) {
                latest = manifests.readLatest();
                long stored = latest.map(ShardManifest::writerEpoch).orElse(0L);
                if (stored >= epoch) {
                    throw new EpochConflictException(latestLocation(latest), epoch, stored);
                }
                if (attempt >= MAX_ATTEMPTS) {
                    throw lost;
                }
                // The old writer published something (same epoch): claim on top of it.
                LOG.debug(
                        "Shard {} moved to version {} during claim; retrying",
                        manifests.shardId(),
                        latest.map(ShardManifest::version).orElse(0L));
            }
        }
    }

    private ShardManifest firstManifest(ShardPlacement placement) {
        return ShardManifest.builder()
                .version(1)
                .writerEpoch(1)
                .currentGeneration(1)
                .shardId(manifests.shardId())
                .shardSpecId(placement.specId())
                .shardFieldEntries(placement.fieldEntries())
                .build();
    }

    private ShardManifest reclaimed(ShardManifest current, ShardPlacement placement, long epoch, long mergedThrough) {
        String where = manifests.location(manifests.versionKey(current.version()));
        if (current.isSealed()) {
            throw new ShardSealedException(where);
        }
        boolean storedHasPlacement =
                current.shardSpecId() != 0 || !current.shardFieldEntries().isEmpty();
        boolean claimHasPlacement =
                placement.specId() != 0 || !placement.fieldEntries().isEmpty();
        // A mismatch means the caller routes other keys here than the shard was made for; rows
        // would become invisible to readers that prune by placement. A shard with the spec id but
        // no field entries (LanceDB opens its bucket shards so; readers never prune them) records
        // no values to contradict.
        boolean entriesContradict = !current.shardFieldEntries().isEmpty()
                && !current.shardFieldEntries().equals(placement.fieldEntries());
        if (storedHasPlacement
                && claimHasPlacement
                && (current.shardSpecId() != placement.specId() || entriesContradict)) {
            throw new ShardClaimException(
                    where,
                    "shard records spec " + current.shardSpecId() + " "
                            + current.shardFieldEntries() + " but is claimed for spec " + placement.specId()
                            + " " + placement.fieldEntries());
        }
        ShardManifest claimed = current.withWriterEpoch(epoch);
        if (claimed.sstables().stream().noneMatch(t -> t.generation() <= mergedThrough)) {
            return claimed;
        }
        LOG.info(
                "Shard {}: leaving SSTables through generation {} out of the claim, they are merged into the base table",
                manifests.shardId(),
                mergedThrough);
        return claimed.toBuilder()
                .sstables(claimed.sstables().stream()
                        .filter(t -> t.generation() > mergedThrough)
                        .toList())
                .build();
    }

    private String latestLocation(Optional<ShardManifest> latest) {
        return manifests.location(
                manifests.versionKey(latest.map(ShardManifest::version).orElse(1L)));
    }
}
