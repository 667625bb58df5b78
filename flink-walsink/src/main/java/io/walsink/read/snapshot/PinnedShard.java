package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.read.ReadMode;
import java.io.Serializable;
import java.util.Objects;
import java.util.UUID;

/**
 * One shard's part of a {@link TableSnapshot}: the manifest version read and, in
 * {@link ReadMode#LATEST}, the last WAL position read. Manifest versions and WAL entries are
 * immutable once written, so these numbers name the same rows for as long as the objects exist.
 *
 * @param manifestVersion the manifest version read; 0 when the shard had none yet (nothing to read)
 * @param walThrough the last WAL position read: the entries after the manifest's
 *     {@code replay_after} position up to here; 0 when the WAL is not read ({@link ReadMode#COMMITTED})
 * @param bucket the bucket the manifest's field entries name, {@link #NO_BUCKET} when they name none
 */
@Internal
public record PinnedShard(UUID shardId, long manifestVersion, long walThrough, int bucket) implements Serializable {
    public static final int NO_BUCKET = -1;

    public PinnedShard {
        Objects.requireNonNull(shardId, "shardId");
        if (manifestVersion < 0 || walThrough < 0 || bucket < NO_BUCKET) {
            throw new IllegalArgumentException("invalid pinned shard " + shardId + ": manifest version "
                    + manifestVersion + ", WAL through " + walThrough + ", bucket " + bucket);
        }
    }

    public boolean hasBucket() {
        return bucket != NO_BUCKET;
    }
}
