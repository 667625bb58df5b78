package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import java.util.List;

/**
 * Which part of the key space a shard owns: the sharding spec id and the field values under it.
 * Recorded in a brand-new shard's first manifest so readers can prune shards.
 */
@Internal
public record ShardPlacement(int specId, List<ShardFieldEntry> fieldEntries) {
    public ShardPlacement {
        if (specId < 0) {
            throw new IllegalArgumentException("spec id is a uint32 below 2^31 here: " + specId);
        }
        fieldEntries = List.copyOf(fieldEntries);
    }

    /** The shard fed by one bucket of a {@code bucket} spec. */
    public static ShardPlacement bucket(int specId, int bucket) {
        return new ShardPlacement(specId, List.of(ShardFieldEntry.bucket(bucket)));
    }

    /** No sharding information (spec id 0, no entries), as lance-core 7.0.0 writes. */
    public static ShardPlacement none() {
        return new ShardPlacement(0, List.of());
    }
}
