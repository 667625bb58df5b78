package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.memwal.MemWalIndexDetails;

/**
 * What the MemWAL layers need to know about a base table, read once at open.
 *
 * @param uri the table location as given
 * @param version the table version read
 * @param schema the table's Arrow schema (fields in table order, with their metadata)
 * @param primaryKey key column names in key-position order
 * @param fieldIds the Lance field id of every top-level column, in table order
 * @param sharding the newest sharding spec of the MemWAL index
 * @param memWal the MemWAL index details as lance-core reports them
 */
@Internal
public record TableInfo(
        String uri,
        long version,
        Schema schema,
        List<String> primaryKey,
        Map<String, Integer> fieldIds,
        ShardingSpec sharding,
        MemWalIndexDetails memWal) {

    public TableInfo {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(schema, "schema");
        primaryKey = List.copyOf(primaryKey);
        fieldIds = Collections.unmodifiableMap(new LinkedHashMap<>(fieldIds));
        Objects.requireNonNull(sharding, "sharding");
        Objects.requireNonNull(memWal, "memWal");
    }

    /** The Lance field id of top-level column {@code column}. */
    public int fieldId(String column) {
        Integer id = fieldIds.get(column);
        if (id == null) {
            throw new IllegalArgumentException(
                    "table at " + uri + " has no column '" + column + "'; columns: " + fieldIds.keySet());
        }
        return id;
    }

    public boolean isKeyColumn(String column) {
        return primaryKey.contains(column);
    }
}
