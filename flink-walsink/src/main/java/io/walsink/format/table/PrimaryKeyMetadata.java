package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** The field metadata by which Lance declares an (unenforced) primary key. */
@Internal
public final class PrimaryKeyMetadata {
    public static final String PRIMARY_KEY = "lance-schema:unenforced-primary-key";
    public static final String PRIMARY_KEY_POSITION = "lance-schema:unenforced-primary-key:position";

    private PrimaryKeyMetadata() {}

    /**
     * {@code field} marked as key column {@code position} (1-based) and made non-nullable.
     * The position is recorded only for composite keys, as Lance does.
     */
    public static Field markKey(Field field, int position, boolean composite) {
        Map<String, String> metadata = new LinkedHashMap<>();
        if (field.getMetadata() != null) {
            metadata.putAll(field.getMetadata());
        }
        metadata.put(PRIMARY_KEY, "true");
        if (composite) {
            metadata.put(PRIMARY_KEY_POSITION, Integer.toString(position));
        } else {
            metadata.remove(PRIMARY_KEY_POSITION);
        }
        FieldType type = new FieldType(false, field.getType(), field.getDictionary(), metadata);
        return new Field(field.getName(), type, field.getChildren());
    }

    public static boolean isKey(Field field) {
        return field.getMetadata() != null && "true".equals(field.getMetadata().get(PRIMARY_KEY));
    }
}
