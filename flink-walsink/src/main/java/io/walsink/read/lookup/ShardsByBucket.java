package io.walsink.read.lookup;

import io.walsink.format.TableLayout;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Which shards can hold a key of a bucket: the shard whose manifest names the bucket, and any
 * shard that names none (it could hold any key), as a listing of the table's shards found them.
 * A bucket's shard does not change once it exists, and a keyed unsharded table has exactly one
 * shard (a second would overlap it, which writers refuse), so the listing is repeated only while
 * the bucket, or the unsharded table, has no shard yet, or for a key of any bucket, and then at
 * most once per refresh interval. A probe of a settled bucket reads no listing and no manifest.
 */
final class ShardsByBucket {
    private final ObjectStore store;
    private final Function<UUID, PinnedShard> pin;
    private final long refreshNanos;
    private Map<Integer, List<UUID>> byBucket = Map.of();
    private long listedAt;
    private boolean listed;

    /** @param pin reads a shard's latest manifest: its version and the bucket it names */
    ShardsByBucket(ObjectStore store, Function<UUID, PinnedShard> pin, long refreshNanos) {
        this.store = store;
        this.pin = pin;
        this.refreshNanos = refreshNanos;
    }

    /** Every shard, for a key whose bucket cannot be told (the table is sharded on a non-key column). */
    static final int ANY = -2;

    /**
     * The shards of {@code bucket}: {@link PinnedShard#NO_BUCKET} for a table that is not
     * bucket-sharded, {@link #ANY} for all of them.
     */
    List<UUID> of(int bucket) {
        List<UUID> shards = lookUp(bucket);
        boolean settled = bucket != ANY && byBucket.containsKey(bucket);
        if (!listed || (!settled && System.nanoTime() - listedAt >= refreshNanos)) {
            list();
            shards = lookUp(bucket);
        }
        return shards;
    }

    private List<UUID> lookUp(int bucket) {
        if (bucket == ANY) {
            return byBucket.values().stream().flatMap(List::stream).toList();
        }
        List<UUID> shards = new ArrayList<>(byBucket.getOrDefault(bucket, List.of()));
        if (bucket != PinnedShard.NO_BUCKET) {
            shards.addAll(byBucket.getOrDefault(PinnedShard.NO_BUCKET, List.of()));
        }
        return shards;
    }

    private void list() {
        Map<Integer, List<UUID>> shards = new HashMap<>();
        for (UUID shard : TableLayout.shards(store)) {
            PinnedShard pinned = pin.apply(shard);
            if (pinned.manifestVersion() > 0) {
                shards.computeIfAbsent(pinned.bucket(), b -> new ArrayList<>()).add(shard);
            }
        }
        byBucket = shards;
        listedAt = System.nanoTime();
        listed = true;
    }
}
