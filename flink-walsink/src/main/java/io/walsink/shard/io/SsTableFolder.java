package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Name and location of an SSTable folder, {@code {random8}_gen_{g}} in the shard folder ({@link
 * TableLayout#ssTableFolderName}).
 */
@Internal
public final class SsTableFolder {
    private SsTableFolder() {}

    /** A fresh folder name for {@code generation}. */
    public static String newName(long generation, RandomGenerator random) {
        return TableLayout.ssTableFolderName(random.nextInt(), generation);
    }

    /** Key of folder {@code name} of shard {@code shardId} in the table's object store, ending in {@code /}. */
    public static String key(UUID shardId, String name) {
        return TableLayout.ssTableFolder(shardId, name);
    }
}
