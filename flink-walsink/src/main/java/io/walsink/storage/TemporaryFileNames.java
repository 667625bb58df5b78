package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.util.UUID;

/**
 * Names of the files a {@link LocalObjectStore} writes before linking them into place. They start
 * with a dot and end with {@code .partial}, so no reader can take one for a WAL entry or a
 * manifest (whose stems are exactly 64 characters of 0/1 with {@code .arrow} / {@code .binpb}),
 * and listings skip them.
 */
@Internal
public final class TemporaryFileNames {
    private static final String PREFIX = ".tmp-";
    private static final String SUFFIX = ".partial";

    private TemporaryFileNames() {}

    public static String next() {
        return PREFIX + UUID.randomUUID() + SUFFIX;
    }

    /** True for a file name (last path segment) made by {@link #next()}. */
    public static boolean isTemporary(String fileName) {
        return fileName.startsWith(PREFIX) && fileName.endsWith(SUFFIX);
    }
}
