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
    public void putRange(PrimaryKeyEncoder keys, FieldVector[] keyColumns, int from, int to, long firstPosition) {
        for (int r = from; r < to; r++) {
            keys.encode(keyColumns, r, key);
            index.put(key.array(), 0, key.length(), firstPosition + (r - from));
        }
    }

    @Override
    public int markNewest(
            PrimaryKeyEncoder keys, FieldVector[] keyColumns, int count, long firstPosition, boolean[] newest) {
        int marked = 0;
        for (int r = 0; r < count; r++) {
            keys.encode(keyColumns, r, key);
            boolean isNewest = index.get(key.array(), 0, key.length()) == firstPosition + r;
            newest[r] = isNewest;
            marked += isNewest ? 1 : 0;
        }
        return marked;
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
