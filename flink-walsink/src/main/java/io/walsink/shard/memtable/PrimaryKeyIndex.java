package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.Murmur3;
import java.util.Arrays;

/**
 * Newest row position per encoded primary key, for one memtable.
 *
 * <p>Keys are the order-preserving key bytes, copied into one growing arena; the table is open
 * addressing over primitive arrays. A key costs its bytes plus about 30 bytes of arrays and no
 * object, so millions of keys do not turn into millions of garbage-collected entries.
 */
@Internal
public final class PrimaryKeyIndex {
    private static final int EMPTY = -1;
    public static final long ABSENT = -1L;

    private int[] slots; // entry number, or EMPTY; length is a power of two
    private int[] entryHash;
    private int[] entryOffset;
    private int[] entryLength;
    private long[] entryRow;
    private byte[] arena;
    private int arenaUsed;
    private int size;

    public PrimaryKeyIndex() {
        this(1024);
    }

    public PrimaryKeyIndex(int expectedKeys) {
        int capacity = Integer.highestOneBit(Math.max(16, expectedKeys * 2 - 1)) << 1;
        slots = new int[capacity];
        Arrays.fill(slots, EMPTY);
        int entries = Math.max(16, expectedKeys);
        entryHash = new int[entries];
        entryOffset = new int[entries];
        entryLength = new int[entries];
        entryRow = new long[entries];
        arena = new byte[Math.max(256, entries * 8)];
    }

    /**
     * Records {@code row} as the newest row of the key {@code key[offset, offset + length)}.
     *
     * @return the row it replaces, or {@link #ABSENT} for a new key
     */
    public long put(byte[] key, int offset, int length, long row) {
        int hash = hash(key, offset, length);
        int mask = slots.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[slot];
            if (entry == EMPTY) {
                slots[slot] = append(hash, key, offset, length, row);
                if (size * 2 > slots.length) {
                    rehash(slots.length * 2);
                }
                return ABSENT;
            }
            if (entryHash[entry] == hash && sameKey(entry, key, offset, length)) {
                long previous = entryRow[entry];
                entryRow[entry] = row;
                return previous;
            }
        }
    }

    /** The newest row of the key, or {@link #ABSENT}. */
    public long get(byte[] key, int offset, int length) {
        int hash = hash(key, offset, length);
        int mask = slots.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[slot];
            if (entry == EMPTY) {
                return ABSENT;
            }
            if (entryHash[entry] == hash && sameKey(entry, key, offset, length)) {
                return entryRow[entry];
            }
        }
    }

    /** Number of distinct keys. */
    public int size() {
        return size;
    }

    /** Heap bytes held by the index's arrays (capacity, not just what is used). */
    public long memoryBytes() {
        return 4L * slots.length + (4L + 4L + 4L + 8L) * entryRow.length + arena.length;
    }

    private int append(int hash, byte[] key, int offset, int length, long row) {
        if (size == entryRow.length) {
            int grown = size + (size >> 1);
            entryHash = Arrays.copyOf(entryHash, grown);
            entryOffset = Arrays.copyOf(entryOffset, grown);
            entryLength = Arrays.copyOf(entryLength, grown);
            entryRow = Arrays.copyOf(entryRow, grown);
        }
        if (arenaUsed + length > arena.length) {
            long needed = (long) arenaUsed + length;
            long grown = Math.max(needed, arena.length + (arena.length >> 1));
            if (grown > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("primary-key index arena exceeds 2 GiB; lower the memtable size limit");
            }
            arena = Arrays.copyOf(arena, (int) grown);
        }
        System.arraycopy(key, offset, arena, arenaUsed, length);
        int entry = size++;
        entryHash[entry] = hash;
        entryOffset[entry] = arenaUsed;
        entryLength[entry] = length;
        entryRow[entry] = row;
        arenaUsed += length;
        return entry;
    }

    private boolean sameKey(int entry, byte[] key, int offset, int length) {
        int start = entryOffset[entry];
        return entryLength[entry] == length
                && Arrays.equals(arena, start, start + length, key, offset, offset + length);
    }

    private void rehash(int capacity) {
        int[] grown = new int[capacity];
        Arrays.fill(grown, EMPTY);
        int mask = capacity - 1;
        for (int entry = 0; entry < size; entry++) {
            int slot = entryHash[entry] & mask;
            while (grown[slot] != EMPTY) {
                slot = (slot + 1) & mask;
            }
            grown[slot] = entry;
        }
        slots = grown;
    }

    // FNV-1a over the bytes, then a murmur finalizer so that low bits (the slot) mix well.
    private static int hash(byte[] key, int offset, int length) {
        int h = 0x811c9dc5;
        for (int i = offset; i < offset + length; i++) {
            h = (h ^ key[i]) * 0x01000193;
        }
        return Murmur3.fmix32(h);
    }
}
