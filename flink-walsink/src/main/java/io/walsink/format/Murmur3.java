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

    /**
     * Murmur3's 64-bit finalizer ({@code fmix64}). In-memory tables keyed by one 64-bit key value
     * hash with it: the bucket hash is Murmur3 x86-32 of the same value, and all keys of one shard
     * share that hash modulo the bucket count, so a table must not take its slot from it.
     */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
