package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.rollback.RollbackRun;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Rolls a table back to a base table version or tag: afterwards every reader reads exactly that
 * version, and writers go on from there. What {@code walsink rollback} and the catalog's {@code
 * sys.rollback_to} and {@code sys.rollback_to_tag} do (docs/operations.md, "Rolling a table back").
 *
 * <p>Refused, before anything is written, while a shard holds rows only in its WAL (a job writes
 * it, or stopped without a savepoint) unless forced, while a compaction, collection or restore
 * holds the table's maintenance lease, and for a version the table does not hold. A job writing
 * the table is fenced and fails; its checkpoints taken before the rollback are refused when
 * restored. An interrupted rollback is finished by running it again.
 */
@PublicEvolving
public final class TableRollback {
    private final String path;
    private final S3Options s3;

    private TableRollback(String path, S3Options s3) {
        this.path = path;
        this.s3 = s3 == null ? S3Options.defaults() : s3;
    }

    /**
     * The table at {@code path} ({@code file:///...}, a plain path or {@code s3://bucket/prefix}).
     *
     * @param s3 used only for {@code s3://} paths; null for the defaults
     */
    public static TableRollback of(String path, S3Options s3) {
        return new TableRollback(path, s3);
    }

    /**
     * Rolls back to base table version {@code version}.
     *
     * @param force drop the rows shards hold only in their WAL instead of refusing
     * @throws IllegalArgumentException if the version is not held, a shard holds rows only in its
     *     WAL (without force) or a rollback to another version is unfinished; nothing is written
     * @throws io.walsink.recovery.CompactionLeaseException if a compaction, a collection or a
     *     restore holds the maintenance lease; nothing is written
     */
    public RollbackResult toVersion(long version, boolean force) {
        try (ObjectStore store = ObjectStores.open(path, s3);
                BufferAllocator allocator = new RootAllocator()) {
            return run(store, allocator).run(version, force);
        }
    }

    /** As {@link #toVersion}, to the version tag {@code tag} names (fails naming the tags there are). */
    public RollbackResult toTag(String tag, boolean force) {
        try (ObjectStore store = ObjectStores.open(path, s3);
                BufferAllocator allocator = new RootAllocator()) {
            RollbackRun run = run(store, allocator);
            return run.run(run.versionOf(tag), force);
        }
    }

    private RollbackRun run(ObjectStore store, BufferAllocator allocator) {
        return new RollbackRun(
                TableLocation.of(store, path, s3),
                allocator,
                RollbackRun.claimant(ProcessHandle.current().pid() + ""),
                System::currentTimeMillis,
                RollbackRun.Hook.NONE);
    }
}
