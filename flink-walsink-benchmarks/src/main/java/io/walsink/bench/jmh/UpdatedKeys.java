package io.walsink.bench.jmh;

import java.util.SplittableRandom;

/** Key sequences in which a given fraction of rows update a key seen earlier in the sequence. */
final class UpdatedKeys {
    private UpdatedKeys() {}

    /**
     * @param updatedFraction share of rows (after the first) whose key repeats an earlier one;
     *     the rest are new keys
     */
    static long[] sequence(int rows, double updatedFraction, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] ids = new long[rows];
        long distinct = 0;
        for (int i = 0; i < rows; i++) {
            boolean update = distinct > 0 && random.nextDouble() < updatedFraction;
            ids[i] = update ? random.nextLong(distinct) : distinct++;
        }
        return ids;
    }
}
