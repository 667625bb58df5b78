package io.walsink.format.pkindex;

import java.util.Arrays;

/**
 * Row offsets ordered by byte-string keys compared as unsigned bytes, shorter first on a common
 * prefix: keys stored end to end in one array. Eight bytes at a time, most significant first: a
 * range of rows is radix-ordered by its keys' bytes at one offset ({@link UnsignedLongOrder}, as a
 * big-endian long, zero-padded), then each run that shares those bytes is ordered by the next eight.
 * Short runs, and runs holding a key that ends within the bytes just compared, are merge-sorted.
 *
 * <p>The merge sort alone compares whole keys through an offset array, two random reads per
 * comparison and about 18 comparisons a key at 250,000 keys: three times the time of this order
 * for keys sharing a prefix, seven times for random ones (docs/benchmarks.md).
 */
final class KeyBytesOrder {
    /** Ranges shorter than this are merge-sorted: a radix pass (its counts alone 48 KiB) costs more there. */
    private static final int RADIX_MIN_ROWS = 256;

    private final byte[] arena;
    private final int[] ends;
    private int[] buffer;

    private KeyBytesOrder(byte[] arena, int[] ends) {
        this.arena = arena;
        this.ends = ends;
    }

    /**
     * Offsets {@code 0..rows-1} ordered by key; key {@code r} is {@code arena[start(r), ends[r])},
     * where {@code start(0) = 0} and {@code start(r) = ends[r - 1]}. Equal keys keep their order.
     */
    static int[] of(byte[] arena, int[] ends, int rows) {
        int[] order = new int[rows];
        for (int i = 0; i < rows; i++) {
            order[i] = i;
        }
        KeyBytesOrder sort = new KeyBytesOrder(arena, ends);
        sort.buffer = new int[rows];
        sort.sort(order, 0, rows, 0);
        return order;
    }

    /** Orders {@code order[lo, hi)}, whose keys share their first {@code offset} bytes. */
    private void sort(int[] order, int lo, int hi, int offset) {
        int n = hi - lo;
        if (n < RADIX_MIN_ROWS) {
            mergeSort(order, lo, hi);
            return;
        }
        long[] chunks = new long[n];
        for (int i = 0; i < n; i++) {
            chunks[i] = chunk(order[lo + i], offset);
        }
        int[] ranked = UnsignedLongOrder.of(chunks, n);
        int[] rows = Arrays.copyOfRange(order, lo, hi);
        long[] sortedChunks = new long[n];
        for (int i = 0; i < n; i++) {
            order[lo + i] = rows[ranked[i]];
            sortedChunks[i] = chunks[ranked[i]];
        }
        int next = offset + Long.BYTES;
        for (int start = 0; start < n; ) {
            int end = start + 1;
            boolean keyEnds = length(order[lo + start]) <= next;
            while (end < n && sortedChunks[end] == sortedChunks[start]) {
                keyEnds |= length(order[lo + end]) <= next;
                end++;
            }
            if (end - start > 1) {
                if (keyEnds) {
                    mergeSort(order, lo + start, lo + end); // a key ends here: lengths decide
                } else {
                    sort(order, lo + start, lo + end, next);
                }
            }
            start = end;
        }
    }

    /** Bytes {@code [offset, offset + 8)} of row {@code row}'s key, big-endian, zero past its end. */
    private long chunk(int row, int offset) {
        int from = start(row) + offset;
        int to = Math.min(ends[row], from + Long.BYTES);
        long bits = 0;
        for (int i = from; i < from + Long.BYTES; i++) {
            bits = (bits << 8) | (i < to ? arena[i] & 0xFF : 0);
        }
        return bits;
    }

    private int start(int row) {
        return row == 0 ? 0 : ends[row - 1];
    }

    private int length(int row) {
        return ends[row] - start(row);
    }

    /** A stable bottom-up merge sort of {@code order[lo, hi)} by whole keys. */
    private void mergeSort(int[] order, int lo, int hi) {
        for (int width = 1; width < hi - lo; width *= 2) {
            for (int left = lo; left < hi - width; left += 2 * width) {
                merge(order, left, left + width, Math.min(left + 2 * width, hi));
            }
        }
    }

    private void merge(int[] order, int lo, int mid, int hi) {
        if (compare(order[mid - 1], order[mid]) <= 0) {
            return; // already in order: common for keys inserted ascending
        }
        System.arraycopy(order, lo, buffer, lo, hi - lo);
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
            if (i < mid && (j >= hi || compare(buffer[i], buffer[j]) <= 0)) {
                order[k] = buffer[i++];
            } else {
                order[k] = buffer[j++];
            }
        }
    }

    private int compare(int a, int b) {
        return Arrays.compareUnsigned(arena, start(a), ends[a], arena, start(b), ends[b]);
    }
}
