package io.walsink.shard;

/**
 * An SSTable a shard writer has written (a Lance dataset in the shard folder) together with the
 * last WAL position whose rows it holds, so publication can advance {@code replay_after}.
 */
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
        if (path == null || path.isEmpty() || path.contains("/")) {
            throw new IllegalArgumentException("SSTable path must be a folder name in the shard folder, was '" + path + "'");
        }
    }
}
