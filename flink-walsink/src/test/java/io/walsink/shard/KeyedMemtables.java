package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Memtables of tests whose key is one int64 column, the schema's first: built with an encoder
 * for that column, as the writer builds them ({@link TableContext}), so they carry the index
 * production picks for such a key; and that key's bytes as the encoder writes them.
 */
@Internal
public final class KeyedMemtables {
    /** Length of {@link #key}'s bytes: a presence byte and the 64 value bits. */
    public static final int KEY_LENGTH = 9;

    private static final Field ID = new Field(
            "id",
            new FieldType(
                    false, new ArrowType.Int(64, true), null, Map.of("lance-schema:unenforced-primary-key", "true")),
            null);
    private static final Field NAME = new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    private static final Field TOMBSTONE =
            new Field("_tombstone", FieldType.notNullable(ArrowType.Bool.INSTANCE), null);

    /** A table of an int64 key {@code id} and a nullable string {@code name}. */
    public static final Schema ID_NAME = new Schema(List.of(ID, NAME));

    /** {@link #ID_NAME} as memtables store it: with {@code _tombstone} (column 2). */
    public static final Schema ID_NAME_STORAGE = new Schema(List.of(ID, NAME, TOMBSTONE));

    private KeyedMemtables() {}

    public static Memtable create(
            BufferAllocator allocator, Schema schema, long generation, int batchMaxRows, int tombstoneColumn) {
        PrimaryKeyEncoder keys =
                new PrimaryKeyEncoder(List.of(schema.getFields().get(0)));
        return new Memtable(allocator, schema, generation, batchMaxRows, tombstoneColumn, keys, RowKeys.NONE);
    }

    /** The key bytes of {@code id} in the first column. */
    public static byte[] key(long id) {
        return new KeyBuffer().appendSigned(id).toByteArray();
    }
}
