package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.table.GenerationPkIndex;
import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.wal.WalStorageSchema;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a frozen memtable as an SSTable: a Lance dataset with one fragment in a new folder
 * {@code {random8}_gen_{g}} of the shard folder, through lance-core: the fragment
 * ({@link SsTableFragment}), then the commit that creates the dataset, as lance-core's own dataset
 * write does in one call.
 *
 * <p>Only the newest row of each key is written (all rows of an append-only table), in forward
 * insert order, with the {@code _tombstone} column kept, so a reader applying SSTables by
 * generation gets last-write-wins and deletes without a deletion vector. The alternative the
 * format allows (all rows plus a deletion vector on fragment 0) costs a second commit.
 *
 * <p>A keyed table's SSTable also gets its primary-key index ({@link GenerationPkIndex}), built from
 * the very batches handed to lance-core, so the keys are never read back from the SSTable.
 *
 * <p>Thread-safe: no mutable state; meant to run on an I/O thread while the owner keeps putting.
 */
@Internal
public final class SsTableWriter {
    private static final Logger LOG = LoggerFactory.getLogger(SsTableWriter.class);

    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final UUID shardId;
    private final WalStorageSchema storage;
    private final BufferAllocator allocator;
    private final PrimaryKeyEncoder keys; // null for append-only tables: no primary-key index
    private final List<MaintainedIndex> indexes;

    /**
     * @param storageOptions lance-core object-store options (empty for local paths)
     * @param allocator allocates the copied batches; sharing the memtables' root allocator lets
     *     batches without superseded rows go to Lance without a copy
     */
    public SsTableWriter(
            String tableUri,
            Map<String, String> storageOptions,
            UUID shardId,
            WalStorageSchema storage,
            BufferAllocator allocator) {
        this(tableUri, storageOptions, shardId, storage, allocator, List.of());
    }

    /** @param indexes the table's maintained indexes, built for every SSTable before it is returned */
    public SsTableWriter(
            String tableUri,
            Map<String, String> storageOptions,
            UUID shardId,
            WalStorageSchema storage,
            BufferAllocator allocator,
            List<MaintainedIndex> indexes) {
        this.indexes = List.copyOf(indexes);
        this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
        this.storageOptions = Map.copyOf(storageOptions);
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.storage = Objects.requireNonNull(storage, "storage");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.keys = storage.primaryKey().isEmpty()
                ? null
                : new PrimaryKeyEncoder(storage.primaryKey().stream()
                        .map(name -> storage.schema().findField(name))
                        .toList());
    }

    private WriteParams fragmentParams() {
        return new WriteParams.Builder()
                .withMaxRowsPerFile(Integer.MAX_VALUE) // the format wants one fragment
                .withStorageOptions(storageOptions)
                .build();
    }

    /**
     * Writes the frozen memtable as an SSTable: a Lance dataset in a new folder
     * {random8}_gen_{g} of the shard folder _mem_wal/{shard}/, rows in forward insert order,
     * only the newest row per primary key (all rows for an append-only table), the _tombstone
     * column kept (SPEC profile). Thread-safe for use from an I/O thread.
     *
     * @throws IllegalStateException if the memtable is not frozen
     * @throws IllegalArgumentException if it is empty or not in this shard's storage schema
     * @throws SsTableWriteException if lance-core fails; names the folder
     */
    public WrittenSsTable write(Memtable frozen) {
        if (!frozen.isFrozen()) {
            throw new IllegalStateException(
                    "memtable generation " + frozen.generation() + " must be frozen before it is flushed");
        }
        if (frozen.rows() == 0) {
            throw new IllegalArgumentException(
                    "memtable generation " + frozen.generation() + " is empty: nothing to flush");
        }
        if (!frozen.schema().equals(storage.schema())) {
            throw new IllegalArgumentException("memtable generation " + frozen.generation()
                    + " is not in the shard's storage schema " + storage.schema() + ": " + frozen.schema());
        }
        String name = SsTableFolder.newName(frozen.generation(), ThreadLocalRandom.current());
        String uri = SsTableFolder.uri(tableUri, shardId, name);
        long started = System.nanoTime();
        long rows;
        int indexPages = 0;
        long maintainedMillis = 0;
        try (GenerationPkIndex index = keys == null ? null : new GenerationPkIndex(keys, allocator);
                NewestRowsReader reader = new NewestRowsReader(allocator, frozen, storage.schema(), false, batch -> {
                    if (index != null) {
                        index.add(keys.keyColumns(batch), 0, batch.getRowCount());
                    }
                })) {
            List<FragmentMetadata> fragments = SsTableFragment.write(reader, allocator, uri, fragmentParams());
            rows = reader.rowsRead();
            if (fragments.size() != 1) {
                throw new SsTableWriteException(
                        uri, "lance-core wrote " + fragments.size() + " fragments, the format allows one", null);
            }
            try (Dataset written =
                    SsTableFragment.commitNew(uri, fragments, storage.schema(), allocator, storageOptions)) {
                long indexing = System.nanoTime();
                IndexBuilds.buildOnGeneration(written, indexes);
                maintainedMillis = (System.nanoTime() - indexing) / 1_000_000;
            }
            if (index != null) {
                if (index.rows() != rows) {
                    throw new SsTableWriteException(
                            uri, "the key index holds " + index.rows() + " keys for " + rows + " rows", null);
                }
                indexPages = index.write(uri, storageOptions);
            }
        } catch (SsTableWriteException e) {
            throw e;
        } catch (Exception e) {
            String why =
                    LanceFailures.isS3Failure(uri, e) ? LanceFailures.explain(uri, storageOptions, e) : e.getMessage();
            throw new SsTableWriteException(
                    uri, "writing SSTable of generation " + frozen.generation() + " failed: " + why, e);
        }
        LOG.info(
                "Wrote SSTable {} of shard {}: {} of {} rows, key index {} pages, maintained indexes {} ({} ms),"
                        + " last WAL position {}, {} ms",
                name,
                shardId,
                rows,
                frozen.rows(),
                indexPages,
                MaintainedIndexes.names(indexes),
                maintainedMillis,
                frozen.lastWalPosition(),
                (System.nanoTime() - started) / 1_000_000);
        return new WrittenSsTable(
                frozen.generation(),
                name,
                frozen.lastWalPosition(),
                rows,
                frozen.payloadBytes(),
                frozen.primaryKeyIndexBytes());
    }
}
