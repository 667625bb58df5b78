package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.pkindex.GenerationPkIndex;
import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.NewestRowsReader;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
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

    private final TableLocation table;
    private final UUID shardId;
    private final WalStorageSchema storage;
    private final BufferAllocator allocator;
    private final PrimaryKeyEncoder keys; // null for append-only tables: no primary-key index
    private final List<MaintainedIndex> indexes;

    /**
     * @param table where the SSTables go (the store is not used: lance-core writes them)
     * @param allocator allocates the copied batches; sharing the memtables' root allocator lets
     *     batches without superseded rows go to Lance without a copy
     */
    public SsTableWriter(TableLocation table, UUID shardId, WalStorageSchema storage, BufferAllocator allocator) {
        this(table, shardId, storage, allocator, List.of());
    }

    /** @param indexes the table's maintained indexes, built for every SSTable before it is returned */
    public SsTableWriter(
            TableLocation table,
            UUID shardId,
            WalStorageSchema storage,
            BufferAllocator allocator,
            List<MaintainedIndex> indexes) {
        this.indexes = List.copyOf(indexes);
        this.table = Objects.requireNonNull(table, "table");
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
        WriteParams.Builder params = new WriteParams.Builder()
                .withMaxRowsPerFile(Integer.MAX_VALUE) // the format wants one fragment
                .withStorageOptions(table.storageOptions());
        LanceTables.dataStorageVersion(storage.schema()).ifPresent(params::withDataStorageVersion);
        return params.build();
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
        return write(frozen, allocator);
    }

    /**
     * Arrow memory writing {@code frozen} allocates at most, which {@link SsTableFlusher} reserves
     * from the writer's allocator before the write starts ({@link #write(Memtable, BufferAllocator)}
     * then takes nothing beyond it):
     *
     * <ul>
     *   <li>the surviving rows copied out ({@link NewestRowsReader}): at most the memtable's own
     *       buffers, plus each copied buffer's rounding up to whole allocation segments; lance-core
     *       may hold every batch handed to it until the fragment is written, so all copies count;
     *   <li>the C Data Interface structures of each batch handed to lance-core;
     *   <li>the primary-key index's values ({@link GenerationPkIndex}): a 64-bit key's values grow
     *       by doubling to at most 16 bytes and a validity bit a row; another key's to at most twice
     *       its bytes, which the memtable's own key index holds at least once, and a page and the
     *       page lookup at most as much again;
     *   <li>a fixed allowance for the page buffers, the commit and the schema exports.
     * </ul>
     *
     * Whole batches shared with lance-core without a copy count as if copied: which rows survive
     * is known only once the write marks them, on its I/O thread.
     */
    public long reservation(Memtable frozen) {
        long batches = handedOut(frozen);
        long columns = storage.schema().getFields().size();
        long copies = frozen.payloadBytes() + batches * columns * BUFFERS_PER_COLUMN * SEGMENT_BYTES;
        long exports = (batches + 1) * (columns + 1) * EXPORT_BYTES_PER_COLUMN;
        long keyIndex;
        if (keys == null) {
            keyIndex = 0;
        } else if (keys.isSingleLong()) {
            keyIndex = frozen.rows() * 17;
        } else {
            keyIndex = 4 * (frozen.primaryKeyIndexBytes() + 8 * frozen.rows());
        }
        return copies + exports + keyIndex + FIXED_BYTES;
    }

    /**
     * Takes {@link #reservation} for writing {@code frozen} from the writer's allocator: the memory
     * the write allocates from, released by closing it once the write is done; empty when the
     * allocator's cap leaves no room for it now.
     */
    Optional<BufferAllocator> reserve(Memtable frozen) {
        long need = reservation(frozen);
        if (allocator.getHeadroom() < need + UNRESERVED_BYTES) {
            return Optional.empty(); // reservations leave room for the small unreserved allocations
        }
        try {
            return Optional.of(allocator.newChildAllocator(reservationName(frozen), need, need));
        } catch (OutOfMemoryException noRoom) {
            return Optional.empty();
        }
    }

    /**
     * As {@link #reserve}, for when nothing in flight can give memory back: reserves what the cap
     * leaves (possibly less than the write needs), and lets the write take the rest on demand.
     */
    BufferAllocator reserveWhatIsLeft(Memtable frozen) {
        long need = reservation(frozen);
        long left = Math.max(0, Math.min(need, allocator.getHeadroom()));
        try {
            return allocator.newChildAllocator(reservationName(frozen), left, need);
        } catch (OutOfMemoryException noRoom) {
            return allocator.newChildAllocator(reservationName(frozen), 0, need);
        }
    }

    private String reservationName(Memtable frozen) {
        return "SSTable write of generation " + frozen.generation() + " of shard " + shardId;
    }

    /**
     * Batches the write hands lance-core at most: each sealed batch, or fewer when they are small,
     * since {@link NewestRowsReader} gathers copied rows: a shared batch has at least
     * {@link NewestRowsReader#SHARE_ROWS} rows, a gathered batch ends at a shared one or where the
     * next would take it past {@link NewestRowsReader#GATHER_ROWS} rows (so two such together hold
     * more than that), and the last one ends with the rows.
     */
    private static long handedOut(Memtable frozen) {
        long shared = frozen.rows() / NewestRowsReader.SHARE_ROWS;
        long overflowing = 2 * (frozen.rows() / NewestRowsReader.GATHER_ROWS) + 1;
        return Math.min(frozen.batchCount(), shared + (shared + 1) + overflowing);
    }

    /**
     * What reservations leave free of the cap: for the few small allocations made outside them
     * (opening a dataset to publish, a schema's export), which must never find the cap taken.
     */
    static final long UNRESERVED_BYTES = 64L << 10;

    /**
     * What a full memtable's reservation may exceed the memtable's size by: the fixed allowance and
     * the batches' copy rounding and exported structures. The owner's pressure mark keeps this much
     * beyond a memtable free.
     */
    public static final long RESERVATION_ALLOWANCE = 1L << 20;

    /** Buffers of a column's copy at most: validity, offsets, data. */
    private static final long BUFFERS_PER_COLUMN = 3;
    /** The writer's allocation segment ({@link OffHeapAllocators}): what rounding adds to a buffer at most. */
    private static final long SEGMENT_BYTES = 1024;
    /** C Data Interface structures of one column of one exported batch (array, buffer pointers, children). */
    private static final long EXPORT_BYTES_PER_COLUMN = 4 * SEGMENT_BYTES;
    /** Page and lookup buffers of the key index, the commit, schema exports. */
    private static final long FIXED_BYTES = 512L << 10;

    /**
     * As {@link #write(Memtable)}, allocating from {@code memory} (an SSTable write's reservation)
     * rather than from the writer's allocator.
     */
    public WrittenSsTable write(Memtable frozen, BufferAllocator memory) {
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
        String uri = table.ssTableUri(shardId, name);
        long started = System.nanoTime();
        long rows;
        int indexPages = 0;
        long maintainedMillis = 0;
        try (GenerationPkIndex index = keys == null ? null : new GenerationPkIndex(keys, memory);
                NewestRowsReader reader = new NewestRowsReader(memory, frozen, storage.schema(), false, batch -> {
                    if (index != null) {
                        index.add(keys.keyColumns(batch), 0, batch.getRowCount());
                    }
                })) {
            List<FragmentMetadata> fragments = SsTableFragment.write(reader, memory, uri, fragmentParams());
            rows = reader.rowsRead();
            if (fragments.size() != 1) {
                throw new SsTableWriteException(
                        uri, "lance-core wrote " + fragments.size() + " fragments, the format allows one", null);
            }
            try (Dataset written =
                    SsTableFragment.commitNew(uri, fragments, storage.schema(), memory, table.storageOptions())) {
                long indexing = System.nanoTime();
                IndexBuilds.buildOnGeneration(written, indexes);
                maintainedMillis = (System.nanoTime() - indexing) / 1_000_000;
            }
            if (index != null) {
                if (index.rows() != rows) {
                    throw new SsTableWriteException(
                            uri, "the key index holds " + index.rows() + " keys for " + rows + " rows", null);
                }
                indexPages = index.write(uri, table.storageOptions());
            }
        } catch (SsTableWriteException e) {
            throw e;
        } catch (Exception e) {
            String why = LanceFailures.isS3Failure(uri, e) ? table.explain(uri, e) : e.getMessage();
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
