package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.Murmur3;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import org.apache.arrow.vector.FieldVector;

/**
 * Newest row position per key for a key of one integer-like column (integers, dates, times,
 * timestamps): open addressing over the 64-bit key value itself, with no key bytes.
 *
 * <p>Two parallel arrays, {@code long} keys and {@code int} rows, probed linearly; 12 bytes a
 * slot. The table grows by half when three quarters of its slots are taken, so it holds between
 * 16 and 24 bytes per key once past its initial size. Slots come from the high half of
 * {@link Murmur3#fmix64} scaled to the capacity (which need not be a power of two): every key
 * of a shard shares its bucket hash modulo the bucket count, so the slot must not depend on it.
 * Key 0 marks an empty slot; a real key 0 (an unsigned 0 or a signed {@code Long.MIN_VALUE}) is
 * kept beside the table.
 *
 * <p>Keys are what {@link PrimaryKeyEncoder#singleLongBits} reads, which is also
 * {@link KeyBuffer#longBits} of the encoded key, so the byte-key calls (WAL replay, the SSTable
 * writer) find the same entries as the column path.
 */
@Internal
public final class LongKeyIndex implements KeyIndex {
    private static final int MIN_CAPACITY = 16;
    private static final int MAX_CAPACITY = 1 << 30;
    private static final long EMPTY = 0L;
    private static final int NO_ROW = -1;

    private long[] keys; // EMPTY or a key
    private int[] rows; // newest row of keys[i]
    private int used; // occupied slots of the table
    private int growAt;
    private int emptyKeyRow = NO_ROW; // newest row of the key that equals EMPTY

    public LongKeyIndex() {
        this(1024);
    }

    public LongKeyIndex(int expectedKeys) {
        allocate(capacityFor(Math.max(1, expectedKeys)));
    }

    /**
     * Records {@code position} as the newest row of {@code key}.
     *
     * @return the row it replaces, or {@link #ABSENT} for a new key
     */
    public long put(long key, long position) {
        int previous = replace(key, rowOf(position));
        return previous == NO_ROW ? ABSENT : previous;
    }

    /**
     * {@link #put} of a row position already checked: the row it replaces, or {@link #NO_ROW}.
     * The slot's row is read before its key is compared, so both cache misses are in flight at once.
     */
    private int replace(long key, int row) {
        if (key == EMPTY) {
            int previous = emptyKeyRow;
            emptyKeyRow = row;
            return previous;
        }
        long[] k = keys;
        int[] r = rows;
        int capacity = k.length;
        for (int slot = slotOf(key, capacity); ; slot = slot + 1 == capacity ? 0 : slot + 1) {
            int previous = r[slot];
            long at = k[slot];
            if (at == key) {
                r[slot] = row;
                return previous;
            }
            if (at == EMPTY) {
                k[slot] = key;
                r[slot] = row;
                if (++used > growAt) {
                    grow();
                }
                return NO_ROW;
            }
        }
    }

    /** The newest row of {@code key}, or {@link #ABSENT}. */
    public long get(long key) {
        if (key == EMPTY) {
            return emptyKeyRow == NO_ROW ? ABSENT : emptyKeyRow;
        }
        long[] k = keys;
        int capacity = k.length;
        for (int slot = slotOf(key, capacity); ; slot = slot + 1 == capacity ? 0 : slot + 1) {
            long at = k[slot];
            if (at == key) {
                return rows[slot];
            }
            if (at == EMPTY) {
                return ABSENT;
            }
        }
    }

    @Override
    public long put(byte[] key, int length, long position) {
        return put(KeyBuffer.longBits(key, length), position);
    }

    @Override
    public long get(byte[] key, int length) {
        return get(KeyBuffer.longBits(key, length));
    }

    @Override
    public void putRange(
            PrimaryKeyEncoder encoder,
            FieldVector[] keyColumns,
            int from,
            int to,
            long firstPosition,
            SupersededRows superseded) {
        FieldVector column = keyColumns[0];
        long position = firstPosition;
        for (int r = from; r < to; r++) {
            int previous = replace(encoder.singleLongBits(column, r), rowOf(position++));
            if (previous != NO_ROW) {
                superseded.mark(previous);
            }
        }
    }

    @Override
    public int size() {
        return used + (emptyKeyRow == NO_ROW ? 0 : 1);
    }

    @Override
    public long memoryBytes() {
        return 8L * keys.length + 4L * rows.length;
    }

    /** Number of slots (for tests of growth). */
    int capacity() {
        return keys.length;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldRows = rows;
        allocate(checked(oldKeys.length + (long) (oldKeys.length >> 1)));
        long[] k = keys;
        int capacity = k.length;
        for (int i = 0; i < oldKeys.length; i++) {
            long key = oldKeys[i];
            if (key == EMPTY) {
                continue;
            }
            int slot = slotOf(key, capacity);
            while (k[slot] != EMPTY) {
                slot = slot + 1 == capacity ? 0 : slot + 1;
            }
            k[slot] = key;
            rows[slot] = oldRows[i];
        }
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        rows = new int[capacity];
        growAt = (int) (capacity * 3L / 4);
    }

    /** Slots for {@code keys} keys at three quarters full (at least {@code keys + 1}). */
    private static int capacityFor(long keys) {
        return checked(Math.max(MIN_CAPACITY, Math.max(keys + 1, (keys * 4 + 2) / 3)));
    }

    private static int checked(long capacity) {
        if (capacity > MAX_CAPACITY) {
            throw new IllegalStateException(
                    "primary-key index exceeds " + MAX_CAPACITY + " slots; lower the memtable size limit");
        }
        return (int) capacity;
    }

    private static int slotOf(long key, int capacity) {
        return (int) (((Murmur3.fmix64(key) >>> 32) * capacity) >>> 32);
    }

    private static int rowOf(long position) {
        if (position < 0 || position > Integer.MAX_VALUE) {
            throw new IllegalStateException(
                    "row " + position + " does not fit the primary-key index; lower sink.memtable.max-rows");
        }
        return (int) position;
    }
}
