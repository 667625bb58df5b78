package io.walsink.table.scan;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.RowData;

/**
 * What one SQL scan reads: the table, how much of it ({@link ReadMode}), which columns, and at
 * most how many rows. Shipped with the job; the read happens when a reader runs it, so a
 * SELECT sees the table as of execution, not as of planning.
 *
 * @param lanceStorageOptions lance-core options for the base table and SSTables
 * @param columns the columns to emit, in output order
 * @param limit the most rows to emit, or -1 for all
 */
public record TableScan(String path, S3Options s3, Map<String, String> lanceStorageOptions,
        WalSchemaProfile profile, ReadMode mode, List<String> columns, long limit) implements Serializable {

    public TableScan {
        lanceStorageOptions = new HashMap<>(lanceStorageOptions); // HashMap: Map.copyOf's class is not stable across JVMs
        columns = List.copyOf(columns);
    }

    /**
     * Merge-on-read of the whole table (newest row per key, tombstones removed), the projected
     * columns of at most {@link #limit} live rows. The merge needs every row of every shard, so
     * the limit saves emitting, not reading.
     */
    public List<RowData> read() {
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore store = ObjectStores.open(path, s3)) {
            TableReader reader = new TableReader(StorageLocation.parse(path).lanceUri(), lanceStorageOptions, store,
                    profile, allocator);
            List<RowData> rows = reader.read(mode, new ProjectedRowExtractor(columns));
            return limit >= 0 && rows.size() > limit ? rows.subList(0, (int) limit) : rows;
        }
    }

    @Override
    public String toString() {
        return "TableScan[" + path + ", " + mode + ", columns=" + columns + (limit >= 0 ? ", limit=" + limit : "") + "]";
    }
}
