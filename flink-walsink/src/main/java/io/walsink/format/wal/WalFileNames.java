package io.walsink.format.wal;

import java.util.OptionalLong;

/**
 * File names of WAL entries: the 64-character binary string of {@code Long.reverse(position)}
 * plus {@code .arrow}, so consecutive positions spread over key prefixes (S3 partitions).
 * Kept package-private until the shared bit-reversed-name helper is merged.
 */
final class WalFileNames {
    static final String EXTENSION = ".arrow";
    private static final int BITS = 64;

    private WalFileNames() {}

    static String name(long position) {
        if (position < 1) {
            throw new IllegalArgumentException("WAL positions start at 1, got " + position);
        }
        String bits = Long.toBinaryString(Long.reverse(position));
        return "0".repeat(BITS - bits.length()) + bits + EXTENSION;
    }

    /** The position a file name stands for; empty for anything else (temporary files included). */
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
        long position = Long.reverse(reversed);
        return position < 1 ? OptionalLong.empty() : OptionalLong.of(position);
    }
}
