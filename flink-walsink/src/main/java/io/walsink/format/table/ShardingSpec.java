package io.walsink.format.table;

import io.walsink.annotation.Internal;

/**
 * The sharding spec a table's MemWAL index declares: its id (recorded in every shard manifest),
 * the sharding field's id (Lance uses {@code bucket}), its result type and the sharding itself.
 */
@Internal
public record ShardingSpec(int specId, String fieldId, String resultType, TableSharding sharding) {}
