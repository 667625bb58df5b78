package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.util.ArrayList;
import java.util.List;

/**
 * The table has shards under the ids earlier flink-walsink releases derived, not the ids Lance's
 * writers derive: a LanceDB writer would open a second shard for the same keys. Writers refuse the
 * table until {@code walsink migrate-shard-ids} has moved those shards to Lance's ids.
 */
@Internal
public class LegacyShardIdsException extends FormatException {
    public LegacyShardIdsException(String location, TableShards shards) {
        super(location, message(shards), null);
    }

    private static String message(TableShards shards) {
        List<String> moves = new ArrayList<>();
        shards.legacy()
                .forEach((bucket, shard) -> moves.add(
                        "bucket " + bucket + ": shard " + shard + " (Lance's id: " + shards.lanceId(bucket) + ")"));
        return "the table has shards under the legacy ids of earlier flink-walsink releases, not the ids Lance's "
                + "writers use, so a LanceDB writer would open second shards for the same keys: "
                + String.join(", ", moves)
                + ". Stop the jobs writing the table (a savepoint or checkpoint of the previous release restores "
                + "after the migration), then run `walsink migrate-shard-ids TABLE`; see docs/format.md, Shard ids";
    }
}
