package io.walsink.shard.memtable;

import java.util.Arrays;

/**
 * Which rows of a memtable a later row of the same key has replaced, a bit a row position, set
 * as the key index records the later row (the index's probe has found the replaced row by then).
 * The SSTable writer reads a batch's newest rows from these bits instead of probing the index
 * again for every row: on the I/O thread each such probe was a cache miss of its own.
 *
 * <p>Written by the shard's owner thread; read by the SSTable writer once the memtable is
 * frozen (the hand-over to the I/O thread orders the two).
 */
final class SupersededRows {
    private long[] words = new long[16];

    /** Records that a later row replaced row {@code position}. */
    void mark(long position) {
        int word = (int) (position >>> 6);
        if (word >= words.length) {
            words = Arrays.copyOf(words, Math.max(word + 1, words.length * 2));
        }
        words[word] |= 1L << position;
    }

    /**
     * Sets {@code newest[r]} for rows {@code firstPosition + r}, {@code r < count}: whether no
     * later row replaced it.
     *
     * @return how many are newest
     */
    int markNewest(long firstPosition, int count, boolean[] newest) {
        int marked = 0;
        long[] w = words;
        for (int r = 0; r < count; r++) {
            long position = firstPosition + r;
            int word = (int) (position >>> 6);
            boolean isNewest = word >= w.length || (w[word] & (1L << position)) == 0;
            newest[r] = isNewest;
            marked += isNewest ? 1 : 0;
        }
        return marked;
    }

    long memoryBytes() {
        return 8L * words.length;
    }
}
