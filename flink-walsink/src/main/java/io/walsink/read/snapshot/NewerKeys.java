package io.walsink.read.snapshot;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.shard.memtable.LongKeyIndex;
import io.walsink.shard.memtable.PrimaryKeyIndex;
import java.util.Collection;
import org.apache.arrow.vector.FieldVector;

/**
 * The keys the unmerged part holds, asked about once per base row: open-addressing hash sets
 * probed without allocating, where a sorted map of byte arrays cost an encoded copy of every base
 * row's key and a dozen comparisons. A single integer-like key is probed by its 64 bits straight
 * from the column; other keys by their encoding in a reused buffer.
 */
final class NewerKeys {
    private final PrimaryKeyEncoder encoder;
    private final LongKeyIndex longs; // the non-null keys of a single-long key, else null
    private final PrimaryKeyIndex encoded = new PrimaryKeyIndex(16); // every other key
    private final KeyBuffer probe = new KeyBuffer();

    /** @param keys encoded keys, as {@link PrimaryKeyEncoder#encode} writes them */
    NewerKeys(PrimaryKeyEncoder encoder, Collection<byte[]> keys) {
        this.encoder = encoder;
        this.longs = encoder.isSingleLong() ? new LongKeyIndex(keys.size()) : null;
        for (byte[] key : keys) {
            if (longs != null && isLongKey(key)) {
                longs.put(KeyBuffer.longBits(key, key.length), 0);
            } else {
                encoded.put(key, 0, key.length, 0);
            }
        }
    }

    /** Whether the key of row {@code row} of {@code keyColumns} is one of the keys. */
    boolean contains(FieldVector[] keyColumns, int row) {
        if (longs != null && !keyColumns[0].isNull(row)) {
            return longs.get(encoder.singleLongBits(keyColumns[0], row)) >= 0;
        }
        encoder.encode(keyColumns, row, probe);
        return encoded.get(probe.array(), 0, probe.length()) >= 0;
    }

    /** A single-long key's encoding of a non-null value: the presence byte and eight value bytes. */
    private static boolean isLongKey(byte[] key) {
        try {
            KeyBuffer.longBits(key, key.length);
            return true;
        } catch (IllegalArgumentException e) {
            return false; // a null key
        }
    }
}
