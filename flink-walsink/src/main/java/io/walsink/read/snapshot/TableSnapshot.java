package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.read.ReadMode;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * One consistent state of a MemWAL table, fixed by version numbers instead of by the moment of a
 * read ({@link SnapshotReader#pin}): reading it again later gives the same rows in the same order,
 * whatever was written meanwhile, for as long as garbage collection keeps the objects it names
 * ({@code sink.gc.retention}); after that a read fails instead of reading something else.
 *
 * @param baseVersion the base table's version, read after every shard's manifest
 * @param shards the shards that existed when the snapshot was pinned, by shard id
 */
@Internal
public record TableSnapshot(ReadMode mode, long baseVersion, List<PinnedShard> shards) implements Serializable {

    public TableSnapshot {
        Objects.requireNonNull(mode, "mode");
        if (baseVersion < 1) {
            throw new IllegalArgumentException("base table version must be positive, was " + baseVersion);
        }
        shards = List.copyOf(shards);
    }

    /** The same snapshot with only the shards of {@code bucket}: what a read of that bucket needs. */
    public TableSnapshot forBucket(int bucket) {
        return new TableSnapshot(
                mode,
                baseVersion,
                shards.stream().filter(s -> s.bucket() == bucket).toList());
    }

    /** Whether every shard names its bucket, so that the table can be read bucket by bucket. */
    public boolean everyShardNamesItsBucket() {
        return shards.stream().allMatch(PinnedShard::hasBucket);
    }

    /** For messages: the versions, shortened when there are many shards. */
    public String describe() {
        StringBuilder s = new StringBuilder("base version ").append(baseVersion);
        int shown = Math.min(shards.size(), 4);
        for (int i = 0; i < shown; i++) {
            PinnedShard shard = shards.get(i);
            s.append(", shard ")
                    .append(shard.shardId())
                    .append(" manifest version ")
                    .append(shard.manifestVersion());
            if (mode == ReadMode.LATEST) {
                s.append(" WAL through ").append(shard.walThrough());
            }
        }
        if (shards.size() > shown) {
            s.append(", ").append(shards.size() - shown).append(" more shards");
        }
        return s.toString();
    }
}
