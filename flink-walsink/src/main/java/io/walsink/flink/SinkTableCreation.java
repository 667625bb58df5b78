package io.walsink.flink;

import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.table.TableSharding;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table a sink writes: opened if it exists, else created from what the builder declares. How a
 * new table is sharded is decided here: by {@code sink.bucket-column}, else by the first key column,
 * else (an append table) round-robin over the declared shard count.
 */
final class SinkTableCreation {
    private static final Logger LOG = LoggerFactory.getLogger(SinkTableCreation.class);

    private SinkTableCreation() {}

    static TableInfo openOrCreate(
            WalSinkOptions options,
            String path,
            RowType rowType,
            List<String> primaryKey,
            Integer createBuckets,
            Map<String, Integer> vectorColumns,
            List<MaintainedIndex> maintainedIndexes) {
        try {
            return LanceTables.open(options.lanceUri(), options.lanceStorageOptions(), true);
        } catch (TableNotFoundException missing) {
            if (createBuckets == null) {
                throw new IllegalArgumentException(
                        "no Lance table at " + path + "; create it first or call createTableIfMissing(buckets)",
                        missing);
            }
            if (rowType == null) {
                throw new IllegalArgumentException(
                        "creating the table at " + path
                                + " needs the row type: use forRows(rowType) or forPojos(type, rowType)",
                        missing);
            }
            List<String> key = primaryKey == null ? List.of() : primaryKey;
            String bucketColumn = options.settings().get(SinkOptions.BUCKET_COLUMN);
            String column = bucketColumn != null ? bucketColumn : key.isEmpty() ? null : key.get(0);
            TableSharding sharding =
                    column == null ? TableSharding.unsharded() : TableSharding.bucket(column, createBuckets);
            Schema schema = FlinkArrowTypes.toArrowSchema(rowType, vectorColumns);
            if (column == null && key.isEmpty()) {
                // round-robin over the shards, keyed by the writer's row key so that it can be compacted
                schema = AppendRowKey.declare(AppendShards.declare(schema, createBuckets));
                key = List.of(AppendRowKey.COLUMN);
            } else if (column == null) {
                schema = AppendShards.declare(schema, createBuckets);
            }
            LOG.info(
                    "Creating Lance table at {} with primary key {} and {} buckets{}",
                    path,
                    key,
                    createBuckets,
                    column == null ? " (round-robin)" : " on " + column);
            try (ObjectStore store = options.openStore()) {
                return LanceTables.create(
                        options.lanceUri(),
                        schema,
                        key,
                        sharding,
                        options.lanceStorageOptions(),
                        maintainedIndexes,
                        store);
            }
        }
    }
}
