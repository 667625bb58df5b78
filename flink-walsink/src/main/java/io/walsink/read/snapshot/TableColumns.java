package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.schema.LanceField;

/**
 * Columns, key and field ids of a base table as a reader needs them. Unlike {@code TableInfo} a
 * table without a primary key is accepted: it is append-only and every row is read.
 */
@Internal
public record TableColumns(
        Schema schema, List<String> columns, List<String> primaryKey, Map<String, Integer> fieldIds) {

    public static TableColumns of(Dataset ds) {
        List<LanceField> key = new ArrayList<>();
        Map<String, Integer> fieldIds = new LinkedHashMap<>();
        for (LanceField f : ds.getLanceSchema().fields()) {
            fieldIds.put(f.getName(), f.getId());
            if (f.isUnenforcedPrimaryKey()) {
                key.add(f);
            }
        }
        key.sort(
                Comparator.comparingInt(f -> f.getUnenforcedPrimaryKeyPosition().orElse(0)));
        Schema schema = ds.getSchema();
        return new TableColumns(
                schema,
                schema.getFields().stream().map(Field::getName).toList(),
                key.stream().map(LanceField::getName).toList(),
                fieldIds);
    }

    public WalStorageSchema storage(WalSchemaProfile profile) {
        return WalStorageSchema.derive(schema, primaryKey, fieldIds, profile);
    }

    public List<Field> keyFields() {
        return primaryKey.stream().map(schema::findField).toList();
    }

    /** Whether the key is walsink's generated row key of an append table ({@link AppendRowKey}). */
    public boolean generatedKey() {
        return primaryKey.equals(List.of(AppendRowKey.COLUMN));
    }

    /** The columns users declared: without an append table's generated row key. */
    public List<String> userColumns() {
        return generatedKey()
                ? columns.stream().filter(c -> !c.equals(AppendRowKey.COLUMN)).toList()
                : columns;
    }

    /** The key users declared: none for an append table with a generated row key. */
    public List<String> userKey() {
        return generatedKey() ? List.of() : primaryKey;
    }
}
