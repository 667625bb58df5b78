package io.walsink.shard.memtable;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import org.apache.arrow.vector.FieldVector;

/** The general {@link KeyIndex}: composite, string and binary keys as order-preserving key bytes. */
final class ByteKeyIndex implements KeyIndex {
    private final PrimaryKeyIndex index = new PrimaryKeyIndex();
    private final KeyBuffer key = new KeyBuffer();

    @Override
    public long put(byte[] key, int length, long position) {
        return index.put(key, 0, length, position);
    }

    @Override
    public long get(byte[] key, int length) {
        return index.get(key, 0, length);
    }

    @Override
    public void putRange(
            PrimaryKeyEncoder keys,
            FieldVector[] keyColumns,
            int from,
            int to,
            long firstPosition,
            SupersededRows superseded) {
        for (int r = from; r < to; r++) {
            keys.encode(keyColumns, r, key);
            long previous = index.put(key.array(), 0, key.length(), firstPosition + (r - from));
            if (previous != ABSENT) {
                superseded.mark(previous);
            }
        }
    }

    @Override
    public int size() {
        return index.size();
    }

    @Override
    public long memoryBytes() {
        return index.memoryBytes();
    }
}
