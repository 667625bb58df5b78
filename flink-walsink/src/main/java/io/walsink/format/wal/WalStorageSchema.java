package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.table.PrimaryKeyMetadata;
import io.walsink.format.table.TableInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The schema of the rows in a shard's WAL entries and memtables, derived from the table schema:
 * table fields in table order, key fields keeping their primary-key metadata. The {@link
 * WalSchemaProfile#SPEC SPEC} profile also makes non-key fields nullable (a delete carries only its
 * key), stamps {@code lance:field_id} on every top-level field and appends {@code _tombstone}.
 * The lance-java-7.0 profile keeps the table's nullability: lance-core 7.0.0 replays only entries
 * whose schema equals its memtable schema, which is the table schema.
 */
@Internal
public record WalStorageSchema(Schema schema, List<String> primaryKey, WalSchemaProfile profile) {
    public static final String TOMBSTONE = "_tombstone";
    public static final String FIELD_ID = "lance:field_id";

    public WalStorageSchema {
        Objects.requireNonNull(schema, "schema");
        primaryKey = List.copyOf(primaryKey);
        Objects.requireNonNull(profile, "profile");
    }

    public static WalStorageSchema of(TableInfo table, WalSchemaProfile profile) {
        return derive(table.schema(), table.primaryKey(), table.fieldIds(), profile);
    }

    /**
     * @param fieldIds Lance field id of every top-level column (used by the SPEC profile only)
     */
    public static WalStorageSchema derive(
            Schema table, List<String> primaryKey, Map<String, Integer> fieldIds, WalSchemaProfile profile) {
        boolean composite = primaryKey.size() > 1;
        List<Field> fields = new ArrayList<>();
        for (Field f : table.getFields()) {
            if (f.getName().equals(TOMBSTONE)) {
                throw new IllegalArgumentException("table column '" + TOMBSTONE + "' clashes with the WAL tombstone");
            }
            int keyIndex = primaryKey.indexOf(f.getName());
            Field stored = keyIndex >= 0
                    ? PrimaryKeyMetadata.markKey(f, keyIndex + 1, composite)
                    : profile.hasSpecMetadata() ? nullable(f) : f;
            if (profile.hasSpecMetadata()) {
                Integer id = fieldIds.get(f.getName());
                if (id == null) {
                    throw new IllegalArgumentException("no Lance field id for column '" + f.getName() + "'");
                }
                stored = withMetadata(stored, FIELD_ID, Integer.toString(id));
            }
            fields.add(stored);
        }
        for (String key : primaryKey) {
            if (table.getFields().stream().noneMatch(f -> f.getName().equals(key))) {
                throw new IllegalArgumentException("primary key column '" + key + "' is not in the table schema");
            }
        }
        if (profile.hasSpecMetadata()) {
            fields.add(new Field(TOMBSTONE, FieldType.notNullable(ArrowType.Bool.INSTANCE), null));
        }
        return new WalStorageSchema(new Schema(fields, table.getCustomMetadata()), primaryKey, profile);
    }

    public boolean hasTombstone() {
        return profile.supportsDeletes();
    }

    /** Fails unless this profile can record deletes (lance-core 7.0.0 would resurrect them). */
    public void requireDeletes() {
        if (!hasTombstone()) {
            throw new UnsupportedOperationException("WAL schema profile '" + profile.profileName()
                    + "' has no " + TOMBSTONE + " column, so deletes cannot be written; use profile '"
                    + WalSchemaProfile.SPEC.profileName() + "'");
        }
    }

    private static Field nullable(Field f) {
        FieldType type = new FieldType(true, f.getType(), f.getDictionary(), f.getMetadata());
        return new Field(f.getName(), type, f.getChildren());
    }

    private static Field withMetadata(Field f, String key, String value) {
        Map<String, String> metadata = new LinkedHashMap<>();
        if (f.getMetadata() != null) {
            metadata.putAll(f.getMetadata());
        }
        metadata.put(key, value);
        FieldType type = new FieldType(f.isNullable(), f.getType(), f.getDictionary(), metadata);
        return new Field(f.getName(), type, f.getChildren());
    }
}
