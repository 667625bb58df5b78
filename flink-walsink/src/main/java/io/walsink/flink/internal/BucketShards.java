package io.walsink.flink.internal;

import io.walsink.format.manifest.LegacyShardIdsException;
import io.walsink.format.manifest.OverlappingShardsException;
import io.walsink.format.manifest.TableShards;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.ShardDescriptor;
import io.walsink.storage.ObjectStore;
import java.util.OptionalInt;
import java.util.UUID;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which shard holds a bucket. A shard found in storage that claims the bucket wins (a table another
 * writer started keeps one shard per bucket); otherwise it is Lance's id for the bucket ({@link
 * io.walsink.format.sharding.ShardIds}), so every attempt, every parallel instance and Lance's own
 * writers agree without asking. Tables with overlapping shards or with shards under the ids of the
 * previous release are refused before any shard is claimed.
 */
final class BucketShards {
    private static final Logger LOG = LoggerFactory.getLogger(BucketShards.class);

    private final TableShards shards;
    private final int specId;

    private BucketShards(TableShards shards, int specId) {
        this.shards = shards;
        this.specId = specId;
    }

    /**
     * Lists {@code _mem_wal/} and reads each shard's latest manifest once.
     *
     * @throws SuppressRestartsException over a {@link LegacyShardIdsException} if shards carry the
     *     previous release's ids (run {@code walsink migrate-shard-ids} first), or over an
     *     {@link OverlappingShardsException} if two shards claim one bucket: the table needs an
     *     operator's hand, which restarts cannot give
     */
    static BucketShards discover(ObjectStore store, TableInfo table) {
        int specId = table.sharding().specId();
        // Round-robin shards of an append table carry Lance's ids of their buckets, as bucket shards do.
        int appendShards = AppendShards.of(table);
        OptionalInt buckets = table.sharding().sharding().transform() == ShardTransform.BUCKET
                ? table.sharding().sharding().numBuckets()
                : appendShards > 1 ? OptionalInt.of(appendShards) : OptionalInt.empty();
        TableShards shards =
                TableShards.read(store, specId, buckets, !table.primaryKey().isEmpty());
        if (!shards.legacy().isEmpty()) {
            throw new SuppressRestartsException(new LegacyShardIdsException(store.describe(), shards));
        }
        if (!shards.overlaps().isEmpty()) {
            throw new SuppressRestartsException(new OverlappingShardsException(store.describe(), shards.overlaps()));
        }
        LOG.info("Found {} existing shards in {}", shards.shards().size(), store.describe());
        return new BucketShards(shards, specId);
    }

    UUID shardOf(int bucket) {
        return shards.shardOf(bucket);
    }

    /**
     * A descriptor of the previous release names its shard by the old id; {@code walsink
     * migrate-shard-ids} moved that shard, unchanged but for its id, to the one this table uses
     * now, so the descriptor holds for it (versions, positions, generations and paths are the same).
     */
    ShardDescriptor current(ShardDescriptor descriptor) {
        UUID legacy = io.walsink.format.sharding.ShardIds.legacyBucket(specId, descriptor.bucket());
        if (!descriptor.shardId().equals(legacy)) {
            return descriptor;
        }
        UUID now = shardOf(descriptor.bucket());
        LOG.info(
                "Restoring bucket {} from a descriptor naming shard {}, the id of the previous release; its shard is "
                        + "{} now",
                descriptor.bucket(),
                legacy,
                now);
        return descriptor.withShardId(now);
    }
}
