package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import java.time.Duration;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Merges the shards' published SSTables into the Lance base table, as the MemWAL specification's
 * SSTable compactor does: per shard, oldest generation first, with lance-core's merge-insert on the
 * primary key (the SSTable's rows replace the base table's rows of the same key, its tombstones
 * delete the key), recording the generation in the MemWAL index's {@code compacted_sstables} in the
 * same Lance commit. Readers then skip the SSTable, and its shard's writer drops it from the shard
 * manifest at its next manifest update. {@link #compact} runs once; {@link #open} keeps a table
 * open for runs that another thread may ask to stop.
 *
 * <p>Safe while writers run: it merges only generations a published shard manifest lists and never
 * merges a generation twice. A run that fails part-way is retried by running again. One compactor
 * per table at a time: a run takes the table's compaction lease ({@link
 * io.walsink.recovery.CompactionLeaseException} when another holds it) and renews it before every
 * commit (see docs/operations.md).
 *
 * <p>No Flink types: run it from a scheduler, a CLI or a test.
 */
@PublicEvolving
public final class Compactor implements AutoCloseable {
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final TableCompaction compaction;

    private Compactor(ObjectStore store, BufferAllocator allocator, TableCompaction compaction) {
        this.store = store;
        this.allocator = allocator;
        this.compaction = compaction;
    }

    /**
     * Compacts the table at {@code path} ({@code file:///...}, a plain path or {@code s3://bucket/prefix},
     * as the sink's {@code path}) once.
     *
     * @param s3 used only for {@code s3://} paths; null for the defaults
     */
    public static CompactionResult compact(String path, S3Options s3, CompactorOptions options) {
        try (Compactor compactor = open(path, s3, options)) {
            return compactor.run();
        }
    }

    /**
     * Opens the table at {@code path} (as {@link #compact} takes it) for runs; {@link #close()}
     * releases its store and memory.
     *
     * @param s3 used only for {@code s3://} paths; null for the defaults
     */
    public static Compactor open(String path, S3Options s3, CompactorOptions options) {
        S3Options s3Options = s3 == null ? S3Options.defaults() : s3;
        ObjectStore store = ObjectStores.open(path, s3Options);
        BufferAllocator allocator = null;
        try {
            allocator = new RootAllocator();
            return new Compactor(
                    store,
                    allocator,
                    new TableCompaction(TableLocation.of(store, path, s3Options), allocator, options));
        } catch (RuntimeException | Error e) {
            try (store) {
                if (allocator != null) {
                    allocator.close();
                }
            }
            throw e;
        }
    }

    /**
     * One run over every shard of the table, then the optional base table housekeeping. The shards
     * take turns, one generation each (different buckets' generations merged in one commit, see
     * {@link CompactorOptions#maxGenerationsPerCommit()}), until each has merged what it lists or the
     * run's budget ({@link CompactorOptions#maxGenerationsPerRun()}, {@link
     * CompactorOptions#maxRunTime()}, {@link #requestStop()}) is spent; what is left waits for the next
     * run.
     */
    public CompactionResult run() {
        return compaction.run();
    }

    /**
     * Asks a run in progress on another thread to end after the generations it is merging (its
     * commits are atomic); the rest is left for the next run, and the base table housekeeping is
     * skipped. A run started after the request ends at once.
     */
    public void requestStop() {
        compaction.requestStop();
    }

    /**
     * With {@link CompactorOptions#cleanupRetention()}, consumer records written within this long
     * keep the base version their snapshot is pinned at (default 1 day, as garbage collection's).
     */
    public Compactor consumerExpiration(Duration expiration) {
        compaction.consumerExpiration(expiration);
        return this;
    }

    /** Releases the table's memory, then its store; a run must have ended. */
    @Override
    public void close() {
        try (store) {
            allocator.close();
        }
    }
}
