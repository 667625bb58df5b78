package io.walsink.shard;

import java.util.HexFormat;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * Name and location of an SSTable folder, {@code {random8}_gen_{g}} in the shard folder. The
 * random prefix keeps a retried flush of the same generation (after a failed attempt left a
 * partial folder) from colliding with the leftovers.
 */
public final class SsTableFolder {
    private static final Pattern NAME = Pattern.compile("[0-9a-f]{8}_gen_[1-9][0-9]*");

    private SsTableFolder() {}

    /** A fresh folder name for {@code generation}. */
    public static String newName(long generation, RandomGenerator random) {
        if (generation < 1) {
            throw new IllegalArgumentException("SSTable generation must be >= 1, was " + generation);
        }
        return HexFormat.of().toHexDigits(random.nextInt()) + "_gen_" + generation;
    }

    public static boolean isName(String name) {
        return NAME.matcher(name).matches();
    }

    /** URI of folder {@code name} of shard {@code shardId} under the table at {@code tableUri}. */
    public static String uri(String tableUri, UUID shardId, String name) {
        String root = tableUri.endsWith("/") ? tableUri : tableUri + "/";
        return root + "_mem_wal/" + shardId + "/" + name;
    }
}
