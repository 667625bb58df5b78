package io.walsink.shard;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Memtables of tests whose key is one int64 column, the schema's first: built with an encoder
 * for that column, as the writer builds them ({@link TableContext}), so they carry the index
 * production picks for such a key; and that key's bytes as the encoder writes them.
 */
final class KeyedMemtables {
    /** Length of {@link #key}'s bytes: a presence byte and the 64 value bits. */
    static final int KEY_LENGTH = 9;

    private KeyedMemtables() {}

    static Memtable create(
            BufferAllocator allocator, Schema schema, long generation, int batchMaxRows, int tombstoneColumn) {
        PrimaryKeyEncoder keys =
                new PrimaryKeyEncoder(List.of(schema.getFields().get(0)));
        return new Memtable(allocator, schema, generation, batchMaxRows, tombstoneColumn, keys);
    }

    /** The key bytes of {@code id} in the first column. */
    static byte[] key(long id) {
        return new KeyBuffer().appendSigned(id).toByteArray();
    }
}
