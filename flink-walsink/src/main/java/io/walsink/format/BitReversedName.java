package io.walsink.format;

import io.walsink.annotation.Internal;
import java.util.OptionalLong;

/**
 * File names of WAL entries ({@code wal/{name}.arrow}) and shard manifests
 * ({@code manifest/{name}.binpb}): the 64-character binary string of the bit-reversed value.
 *
 * <p>Bit reversal spreads consecutive values over the key space, so an object store that
 * partitions by key prefix never sees all appends of a shard land on one hot prefix.
 *
 * <p>Values are Lance {@code u64}s held in a Java {@code long}: a negative {@code long} stands
 * for a value of 2<sup>63</sup> or more and round-trips like any other. Zero means "none" in
 * the format and has no name.
 *
 * <p>Parsing is strict on purpose: a temporary file, a listing of another layout or a name with
 * a stray character must never be mistaken for an entry, because replay and tip discovery
 * trust what parses.
 */
@Internal
public final class BitReversedName {

    public static final String WAL_ENTRY_EXTENSION = ".arrow";
    public static final String MANIFEST_EXTENSION = ".binpb";

    static final int STEM_LENGTH = Long.SIZE;

    private BitReversedName() {}

    /** Name of the WAL entry at {@code position} (unsigned, not 0). */
    public static String walEntryName(long position) {
        return nameOf(position, WAL_ENTRY_EXTENSION);
    }

    /** Name of the shard manifest with {@code version} (unsigned, not 0). */
    public static String manifestName(long version) {
        return nameOf(version, MANIFEST_EXTENSION);
    }

    /** The position named by {@code fileName}, or empty if it is not a WAL entry name. */
    public static OptionalLong parseWalEntryPosition(String fileName) {
        return parse(fileName, WAL_ENTRY_EXTENSION);
    }

    /** The version named by {@code fileName}, or empty if it is not a manifest name. */
    public static OptionalLong parseManifestVersion(String fileName) {
        return parse(fileName, MANIFEST_EXTENSION);
    }

    public static boolean isWalEntryName(String fileName) {
        return parseWalEntryPosition(fileName).isPresent();
    }

    public static boolean isManifestName(String fileName) {
        return parseManifestVersion(fileName).isPresent();
    }

    /**
     * Name of {@code value} with {@code extension}.
     *
     * @throws IllegalArgumentException if {@code value} is 0, which the format reserves for "none"
     */
    public static String nameOf(long value, String extension) {
        if (value == 0) {
            throw new IllegalArgumentException("0 means \"none\" in the MemWAL format and has no file name");
        }
        long reversed = Long.reverse(value);
        StringBuilder name = new StringBuilder(STEM_LENGTH + extension.length());
        for (int bit = STEM_LENGTH - 1; bit >= 0; bit--) {
            name.append((reversed >>> bit & 1) == 0 ? '0' : '1');
        }
        return name.append(extension).toString();
    }

    /**
     * The value named by {@code fileName} if it is exactly 64 characters of {@code 0}/{@code 1}
     * followed by {@code extension} and does not name 0; empty otherwise.
     */
    public static OptionalLong parse(String fileName, String extension) {
        if (fileName == null
                || fileName.length() != STEM_LENGTH + extension.length()
                || !fileName.endsWith(extension)) {
            return OptionalLong.empty();
        }
        long reversed = 0;
        for (int i = 0; i < STEM_LENGTH; i++) {
            char c = fileName.charAt(i);
            if (c != '0' && c != '1') {
                return OptionalLong.empty();
            }
            reversed = reversed << 1 | (c - '0');
        }
        return reversed == 0 ? OptionalLong.empty() : OptionalLong.of(Long.reverse(reversed));
    }
}
