package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.sharding.ShardIds;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Which shard of a table holds which bucket, from the shards' latest manifests and their ids.
 *
 * <p>A shard claims bucket {@code b} of a bucket-sharded table when its field entries name
 * {@code b} under the table's spec id, or when its id is Lance's id of {@code b} ({@link
 * ShardIds#bucket}; LanceDB's writers open those shards with empty field entries). Two shards
 * claiming one bucket <em>overlap</em>: the MemWAL specification lets a key live in one shard only,
 * and readers order rows only within a shard. In a keyed unsharded table every shard claims the
 * whole key space, so two shards overlap; an append-only table has no keys to overlap.
 *
 * <p>A shard whose id is the one earlier flink-walsink releases derived ({@link
 * ShardIds#legacyBucket}) is <em>legacy</em>: Lance's writers would open another shard for its
 * bucket.
 */
@Internal
public final class TableShards {
    private final OptionalInt buckets;
    private final Map<Integer, List<Claim>> claims = new TreeMap<>();
    private final Map<Integer, UUID> legacy = new TreeMap<>();
    private final boolean unshardedKeyed;
    private final List<UUID> shards;

    private record Claim(UUID shard, String why) {}

    private TableShards(Map<UUID, Optional<ShardManifest>> latest, int specId, OptionalInt buckets, boolean keyed) {
        this.buckets = buckets;
        this.unshardedKeyed = buckets.isEmpty() && keyed;
        this.shards = List.copyOf(new TreeMap<>(latest).keySet());
        int n = buckets.orElse(1);
        Map<UUID, Integer> lanceIds = new HashMap<>();
        Map<UUID, Integer> legacyIds = new HashMap<>();
        for (int b = 0; b < n; b++) {
            if (buckets.isPresent()) {
                lanceIds.put(ShardIds.bucket(b), b);
            }
            legacyIds.put(ShardIds.legacyBucket(specId, b), b);
        }
        new TreeMap<>(latest).forEach((shard, manifest) -> {
            Integer old = legacyIds.get(shard);
            if (old != null) {
                legacy.put(old, shard);
            }
            if (buckets.isEmpty()) {
                if (keyed) {
                    claim(0, shard, "a shard of the unsharded table");
                }
                return;
            }
            Integer byId = lanceIds.get(shard);
            OptionalInt byEntries = manifest.map(m -> bucketEntry(m, specId)).orElse(OptionalInt.empty());
            if (byEntries.isPresent() && byEntries.getAsInt() < n) {
                claim(byEntries.getAsInt(), shard, "its field entries name bucket " + byEntries.getAsInt());
            }
            if (byId != null && !(byEntries.isPresent() && byEntries.getAsInt() == byId)) {
                claim(byId, shard, "its id is Lance's id of bucket " + byId);
            }
        });
    }

    /**
     * Reads the latest manifest of each shard ({@link TableLayout#shards}: folders holding a
     * manifest version).
     *
     * @param buckets the table's bucket count; empty for an unsharded table
     * @param keyed whether the table has a primary key (append-only tables have none)
     */
    public static TableShards read(ObjectStore store, int specId, OptionalInt buckets, boolean keyed) {
        Map<UUID, Optional<ShardManifest>> latest = new LinkedHashMap<>();
        for (UUID shard : TableLayout.shards(store)) {
            latest.put(shard, new ManifestStore(store, shard).readLatest());
        }
        return of(latest, specId, buckets, keyed);
    }

    /** As {@link #read} on shards already read (an absent manifest: a shard folder without one). */
    public static TableShards of(
            Map<UUID, Optional<ShardManifest>> latest, int specId, OptionalInt buckets, boolean keyed) {
        return new TableShards(latest, specId, buckets, keyed);
    }

    private void claim(int bucket, UUID shard, String why) {
        claims.computeIfAbsent(bucket, b -> new ArrayList<>()).add(new Claim(shard, why));
    }

    private static OptionalInt bucketEntry(ShardManifest m, int specId) {
        if (m.shardSpecId() != specId) {
            return OptionalInt.empty();
        }
        for (ShardFieldEntry e : m.shardFieldEntries()) {
            if (e.fieldId().equals(ShardFieldEntry.BUCKET_FIELD_ID)
                    && e.int32Value().isPresent()) {
                return e.int32Value();
            }
        }
        return OptionalInt.empty();
    }

    /** Lance's id for the shard of {@code bucket} (of the one shard, for an unsharded table). */
    public UUID lanceId(int bucket) {
        return buckets.isPresent() ? ShardIds.bucket(bucket) : ShardIds.unsharded();
    }

    /**
     * The shard that holds {@code bucket}: the one shard claiming it, else Lance's id for it (an
     * append-only table always writes Lance's unsharded shard).
     *
     * @throws IllegalStateException if shards overlap on the bucket (see {@link #overlaps})
     */
    public UUID shardOf(int bucket) {
        List<Claim> c = claims.getOrDefault(bucket, List.of());
        if (c.size() > 1) {
            throw new IllegalStateException(overlap(bucket, c));
        }
        return c.isEmpty() ? lanceId(bucket) : c.get(0).shard();
    }

    /** One line per bucket that two or more shards claim, naming them and why each claims it. */
    public List<String> overlaps() {
        List<String> out = new ArrayList<>();
        claims.forEach((bucket, c) -> {
            if (c.size() > 1) {
                out.add(overlap(bucket, c));
            }
        });
        return out;
    }

    private String overlap(int bucket, List<Claim> c) {
        List<String> named = new ArrayList<>();
        for (Claim claim : c) {
            named.add(claim.shard() + " (" + claim.why() + ")");
        }
        String what = unshardedKeyed
                ? "the unsharded table has " + c.size() + " shards"
                : "bucket " + bucket + " is claimed by " + c.size() + " shards";
        return what + ": " + String.join(", ", named)
                + "; a key must live in exactly one shard, and readers order a key's rows only within a shard";
    }

    /** Bucket (0 for an unsharded table) to the shard holding it under the previous release's id. */
    public Map<Integer, UUID> legacy() {
        return Collections.unmodifiableMap(legacy);
    }

    /** Every shard found, in id order. */
    public List<UUID> shards() {
        return shards;
    }
}
