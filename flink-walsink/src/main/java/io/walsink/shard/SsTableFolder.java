package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.SsTablePaths;
import java.util.HexFormat;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Name and location of an SSTable folder, {@code {random8}_gen_{g}} in the shard folder. The
 * random prefix keeps a retried flush of the same generation (after a failed attempt left a
 * partial folder) from colliding with the leftovers.
 */
@Internal
public final class SsTableFolder {
    private SsTableFolder() {}

    /** A fresh folder name for {@code generation}. */
    public static String newName(long generation, RandomGenerator random) {
        if (generation < 1) {
            throw new IllegalArgumentException("SSTable generation must be >= 1, was " + generation);
        }
        return HexFormat.of().toHexDigits(random.nextInt()) + "_gen_" + generation;
    }

    public static boolean isName(String name) {
        return SsTablePaths.isFolderName(name);
    }

    /**
     * URI of folder {@code name} of shard {@code shardId} under the table at {@code tableUri}.
     *
     * @throws IllegalArgumentException if {@code name} is not an SSTable folder name, so that no
     *     caller can build a URI outside the shard folder
     */
    public static String uri(String tableUri, UUID shardId, String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("not an SSTable folder name {random8}_gen_{g}: '" + name + "'");
        }
        String root = tableUri.endsWith("/") ? tableUri : tableUri + "/";
        return root + "_mem_wal/" + shardId + "/" + name;
    }

    /** Key of folder {@code name} of shard {@code shardId} in the table's object store, ending in {@code /}. */
    public static String key(UUID shardId, String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("not an SSTable folder name {random8}_gen_{g}: '" + name + "'");
        }
        return "_mem_wal/" + shardId + "/" + name + "/";
    }
}
