package io.walsink.flink.internal;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardFieldEntry;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which shard holds a bucket. A shard found in storage whose field entries name the bucket wins
 * (a table another writer started keeps one shard per bucket); otherwise the id is derived from
 * the spec id and bucket, so every attempt and every parallel instance agrees without asking.
 */
final class ShardIds {
    private static final Logger LOG = LoggerFactory.getLogger(ShardIds.class);

    private final int specId;
    private final Map<Integer, UUID> found;

    private ShardIds(int specId, Map<Integer, UUID> found) {
        this.specId = specId;
        this.found = found;
    }

    /** Lists {@code _mem_wal/} and reads each shard's latest manifest once. */
    public static ShardIds discover(ObjectStore store, int specId) {
        Map<Integer, UUID> found = new HashMap<>();
        Map<UUID, Boolean> seen = new HashMap<>();
        for (ObjectMeta meta : store.listAll("_mem_wal/")) {
            String[] parts = meta.key().split("/");
            if (parts.length < 3 || !parts[2].equals("manifest")) {
                continue;
            }
            Optional<UUID> id = ManifestStore.parseShardFolder(parts[1]);
            if (id.isEmpty()) {
                continue; // not a shard folder (the reader skips it too)
            }
            UUID shard = id.get();
            if (seen.putIfAbsent(shard, true) != null) {
                continue;
            }
            Optional<ShardManifest> manifest = new ManifestStore(store, shard).readLatest();
            manifest.flatMap(m -> bucketOf(m, specId)).ifPresent(bucket -> {
                UUID previous = found.putIfAbsent(bucket, shard);
                if (previous != null) {
                    throw new IllegalStateException("table at " + store.describe() + " has two shards for bucket "
                            + bucket + " (" + previous + ", " + shard + "); a key must map to exactly one shard");
                }
            });
        }
        LOG.info("Found {} existing shards with bucket entries in {}", found.size(), store.describe());
        return new ShardIds(specId, found);
    }

    private static Optional<Integer> bucketOf(ShardManifest m, int specId) {
        if (m.shardSpecId() != specId) {
            return Optional.empty();
        }
        for (ShardFieldEntry e : m.shardFieldEntries()) {
            if (e.fieldId().equals("bucket") && e.int32Value().isPresent()) {
                return Optional.of(e.int32Value().getAsInt());
            }
        }
        return Optional.empty();
    }

    public UUID shardOf(int bucket) {
        UUID existing = found.get(bucket);
        return existing != null ? existing : derived(specId, bucket);
    }

    static UUID derived(int specId, int bucket) {
        return UUID.nameUUIDFromBytes(
                ("flink-walsink/spec-" + specId + "/bucket-" + bucket).getBytes(StandardCharsets.UTF_8));
    }
}
