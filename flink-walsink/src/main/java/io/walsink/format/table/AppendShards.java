package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The shard count of an append table (no primary key) whose rows are spread round-robin: Lance's
 * sharding spec of such a table is unsharded (rows follow no column), so walsink records the count
 * in the base table's schema metadata under {@value #METADATA_KEY} when it creates the table. Shard
 * {@code b} is Lance's shard id of bucket {@code b}. A table without the entry has one shard,
 * Lance's unsharded one (as tables of earlier releases). Readers and the compactor need no count:
 * they read every shard found, since rows of an append table are never matched by key.
 */
@Internal
public final class AppendShards {
    public static final String METADATA_KEY = "walsink:append-shards";

    private AppendShards() {}

    /** The round-robin shard count of a table with {@code schema}: 1 without the entry. */
    public static int of(String uri, Schema schema) {
        Map<String, String> metadata = schema.getCustomMetadata();
        String value = metadata == null ? null : metadata.get(METADATA_KEY);
        if (value == null) {
            return 1;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= TableSharding.MIN_BUCKETS && n <= TableSharding.MAX_BUCKETS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new FormatException(
                uri,
                METADATA_KEY + " must be a shard count in [" + TableSharding.MIN_BUCKETS + ", "
                        + TableSharding.MAX_BUCKETS + "], got '" + value + "'",
                null);
    }

    /** The round-robin shard count of {@code table}: 1 unless it is an unsharded append table declaring more. */
    public static int of(TableInfo table) {
        boolean unsharded = table.sharding().sharding().transform() == ShardTransform.UNSHARDED;
        boolean append = table.primaryKey().isEmpty() || AppendRowKey.of(table);
        return unsharded && append ? of(table.uri(), table.schema()) : 1;
    }

    /** {@code schema} declaring {@code shards} round-robin shards, for creating an append table. */
    public static Schema declare(Schema schema, int shards) {
        if (shards < TableSharding.MIN_BUCKETS || shards > TableSharding.MAX_BUCKETS) {
            throw new IllegalArgumentException("an append table's shard count must be in [" + TableSharding.MIN_BUCKETS
                    + ", " + TableSharding.MAX_BUCKETS + "], got " + shards);
        }
        if (shards == 1) {
            return schema;
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        if (schema.getCustomMetadata() != null) {
            metadata.putAll(schema.getCustomMetadata());
        }
        metadata.put(METADATA_KEY, Integer.toString(shards));
        return new Schema(schema.getFields(), metadata);
    }
}
