package io.walsink.format.pkindex;

/**
 * Row offsets ordered by 64-bit keys compared as unsigned: a least-significant-digit radix sort, 11
 * bits a pass, that skips every digit all keys share.
 *
 * <p>A generation's primary-key index sorts every key of the SSTable once. The comparison sort it
 * replaced (a merge sort through an offset array, so two random loads per comparison) was most of an
 * I/O thread's Java time in q1 at 250,000 keys a generation. Keys from a dense range (row ids,
 * sequence numbers, the q1 benchmark's 0..n) differ in their low 20-30 bits only, so two or three
 * sequential passes order them.
 */
final class UnsignedLongOrder {
    private static final int BITS = 11;
    private static final int DIGITS = 1 << BITS;
    private static final int MASK = DIGITS - 1;
    private static final int PASSES = (Long.SIZE + BITS - 1) / BITS;

    private UnsignedLongOrder() {}

    /** Offsets {@code 0..rows-1} ordered by {@code keys[offset]} as unsigned; equal keys keep their order. */
    static int[] of(long[] keys, int rows) {
        return of(keys, rows, new long[rows]);
    }

    /**
     * As {@link #of(long[], int)}, and the keys themselves in that order into {@code sortedKeys}
     * (at least {@code rows} long): the sort moves them anyway, and whoever writes them sorted
     * then reads them in sequence instead of gathering them through the offsets.
     */
    static int[] of(long[] keys, int rows, long[] sortedKeys) {
        System.arraycopy(keys, 0, sortedKeys, 0, rows);
        int[] order = new int[rows];
        for (int i = 0; i < rows; i++) {
            order[i] = i;
        }
        if (rows < 2) {
            return order;
        }
        int[] counts = new int[PASSES * DIGITS]; // flat: a two-dimensional array is a slow runtime call
        for (int i = 0; i < rows; i++) {
            long key = keys[i];
            for (int pass = 0; pass < PASSES; pass++) {
                counts[pass * DIGITS + digit(key, pass)]++;
            }
        }
        long[] sorted = sortedKeys;
        long[] nextKeys = null;
        int[] nextOrder = null;
        for (int pass = 0; pass < PASSES; pass++) {
            int base = pass * DIGITS;
            if (counts[base + digit(sorted[0], pass)] == rows) {
                continue; // every key has this digit: the pass would move nothing
            }
            if (nextKeys == null) {
                nextKeys = new long[rows];
                nextOrder = new int[rows];
            }
            int start = 0;
            for (int d = base; d < base + DIGITS; d++) {
                int n = counts[d];
                counts[d] = start;
                start += n;
            }
            for (int i = 0; i < rows; i++) {
                long key = sorted[i];
                int at = counts[base + digit(key, pass)]++;
                nextKeys[at] = key;
                nextOrder[at] = order[i];
            }
            long[] keysSwap = sorted;
            sorted = nextKeys;
            nextKeys = keysSwap;
            int[] orderSwap = order;
            order = nextOrder;
            nextOrder = orderSwap;
        }
        if (sorted != sortedKeys) {
            System.arraycopy(sorted, 0, sortedKeys, 0, rows);
        }
        return order;
    }

    private static int digit(long key, int pass) {
        return (int) (key >>> (pass * BITS)) & MASK;
    }
}
