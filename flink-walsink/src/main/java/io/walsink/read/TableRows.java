package io.walsink.read;

import io.walsink.annotation.PublicEvolving;
import java.util.List;
import java.util.Map;

/**
 * The live rows of a table or shard as of one read: plain Java values keyed by column name,
 * ordered by primary-key bytes (in read order for an append-only table), without
 * {@code _tombstone}.
 *
 * @param columns the table's columns in table order, without an append table's generated row key
 *     ({@code _walsink_row_key}, which users did not declare)
 * @param primaryKey key columns in key order; empty for an append table
 */
@PublicEvolving
public record TableRows(List<String> columns, List<String> primaryKey, List<Map<String, Object>> rows) {
    public TableRows {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        rows = List.copyOf(rows);
    }

    public int rowCount() {
        return rows.size();
    }
}
