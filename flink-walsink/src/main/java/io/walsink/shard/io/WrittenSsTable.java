package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.manifest.SsTablePaths;

/**
 * An SSTable a shard writer has written (a Lance dataset in the shard folder) together with the
 * last WAL position whose rows it holds, so publication can advance {@code replay_after}.
 */
@Internal
public record WrittenSsTable(
        long generation,
        String path,
        long lastWalPosition,
        long physicalRows,
        long inMemoryBytes,
        long primaryKeyBytes) {

    public WrittenSsTable {
        if (generation < 1) {
            throw new IllegalArgumentException("SSTable generation must be >= 1, was " + generation);
        }
        // Descriptors come back from checkpoints and from _walsink/ records in the table folder;
        // a restore publishes their paths, so they must be folders of this shard and generation.
        SsTablePaths.problem(generation, path).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
    }

    /** This SSTable as a shard manifest lists it. */
    public SsTable toManifestEntry() {
        return SsTable.of(generation, path)
                .withInMemoryBytes(inMemoryBytes)
                .withPhysicalRows(physicalRows)
                .withPrimaryKeyBytes(primaryKeyBytes);
    }
}
