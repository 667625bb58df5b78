package io.walsink.shard.memtable;

import io.walsink.format.key.PrimaryKeyEncoder;
import org.apache.arrow.vector.FieldVector;

/**
 * Newest row position per primary key, for one memtable: what {@link Memtable} needs of its
 * index. {@link #forKey} picks the implementation once per table from the key's shape:
 * {@link LongKeyIndex} for one integer-like column, {@link ByteKeyIndex} (order-preserving key
 * bytes) for anything else.
 *
 * <p>The index is a map, nothing more: the newest row of a key is the last position put for it.
 * Recording a range also marks the rows it replaces in {@link SupersededRows}, which is what the
 * SSTable writer ({@link NewestRowsReader}) reads; nobody iterates the index itself.
 */
interface KeyIndex {
    long ABSENT = -1L;

    /** The index for memtables of a table with key {@code keys}. */
    static KeyIndex forKey(PrimaryKeyEncoder keys) {
        return keys.isSingleLong() ? new LongKeyIndex() : new ByteKeyIndex();
    }

    /**
     * Records {@code position} as the newest row of the encoded key {@code key[0, length)}.
     *
     * @return the row it replaces, or {@link #ABSENT} for a new key
     */
    long put(byte[] key, int length, long position);

    /** The newest row of the encoded key {@code key[0, length)}, or {@link #ABSENT}. */
    long get(byte[] key, int length);

    /**
     * Records rows {@code [from, to)} of {@code keyColumns} (non-null keys) as positions
     * {@code firstPosition, firstPosition + 1, ...}, in that order, reading keys straight from the
     * columns, and marks each row they replace in {@code superseded}.
     */
    void putRange(
            PrimaryKeyEncoder keys,
            FieldVector[] keyColumns,
            int from,
            int to,
            long firstPosition,
            SupersededRows superseded);

    /** Number of distinct keys. */
    int size();

    /** Heap bytes held by the index's arrays (capacity, not just what is used). */
    long memoryBytes();
}
