package io.walsink.format;

import io.walsink.annotation.Internal;

/** Pieces of the Murmur3 hash shared by the bucket hash and in-memory hash tables. */
@Internal
public final class Murmur3 {
    private Murmur3() {}

    /**
     * Murmur3's 32-bit finalizer ({@code fmix32}): every input bit affects every output bit, so
     * the low bits of the result are fit to pick a slot or a bucket.
     */
    public static int fmix32(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
