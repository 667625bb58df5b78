package io.walsink.format.manifest;

import java.util.OptionalLong;

/**
 * Bit-reversed file names of manifest versions: the 64-character binary string of
 * {@code Long.reverse(v)}, left-padded, plus {@code .binpb}. Reversing spreads consecutive
 * versions over the key space (S3 partitions by prefix).
 *
 * <p>Local stand-in until the shared {@code io.walsink.format.BitReversedName} lands; swap at
 * merge.
 */
final class ManifestFileName {
    static final String EXTENSION = ".binpb";
    private static final int BITS = Long.SIZE;

    private ManifestFileName() {}

    static String of(long version) {
        if (version < 1) {
            throw new IllegalArgumentException("manifest versions start at 1: " + version);
        }
        String bits = Long.toBinaryString(Long.reverse(version));
        return "0".repeat(BITS - bits.length()) + bits + EXTENSION;
    }

    /** The version a file name encodes, or empty for anything else (hints, temporary files). */
    static OptionalLong parse(String fileName) {
        if (!fileName.endsWith(EXTENSION) || fileName.length() != BITS + EXTENSION.length()) {
            return OptionalLong.empty();
        }
        long reversed = 0;
        for (int i = 0; i < BITS; i++) {
            char c = fileName.charAt(i);
            if (c != '0' && c != '1') {
                return OptionalLong.empty();
            }
            reversed = (reversed << 1) | (c - '0');
        }
        long version = Long.reverse(reversed);
        return version < 1 ? OptionalLong.empty() : OptionalLong.of(version);
    }
}
