package io.walsink.maintenance.schema;

import io.walsink.annotation.Internal;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds nullable columns at the end of a MemWAL table: rows written before (base table, SSTables,
 * WAL entries) read them as null, in walsink's readers ({@code ColumnsAddedLater}) as in Lance's
 * MemWAL. The generations published so far are merged into the base table first: LanceDB's MemWAL
 * reader (Lance core 10) fails on an SSTable that lacks a column of the table, where newer Lance
 * and walsink read it as null. The merge takes the compaction lease, so a job compacting the table
 * itself makes this fail naming the holder, and the columns are committed under the same hold of
 * it: no merge and no restore's reset commits between the two.
 */
@Internal
public final class AddedColumns {
    private static final Logger LOG = LoggerFactory.getLogger(AddedColumns.class);

    private AddedColumns() {}

    /**
     * @param path the table, as the sink and the compactor name it
     * @param lanceUri the base table's URI and {@code storageOptions} its lance-core options
     * @return the base table version that has the columns
     * @throws IllegalArgumentException naming the column, if one is not nullable or clashes with a
     *     column of the table, before anything is written
     */
    public static long add(
            String path, S3Options s3, String lanceUri, Map<String, String> storageOptions, List<Field> columns) {
        return add(path, s3, lanceUri, storageOptions, columns, () -> {});
    }

    /** As above; {@code beforeCommit} runs just before the columns' commit (a test's seam). */
    static long add(
            String path,
            S3Options s3,
            String lanceUri,
            Map<String, String> storageOptions,
            List<Field> columns,
            Runnable beforeCommit) {
        for (Field f : columns) {
            if (!f.isNullable()) {
                throw new IllegalArgumentException("column '" + f.getName() + "' cannot be added as NOT NULL: the rows"
                        + " written before it hold no value for it; add it nullable");
            }
            if (f.getName().equals(WalStorageSchema.TOMBSTONE)) {
                throw new IllegalArgumentException(
                        "column '" + f.getName() + "' cannot be added: the name is the WAL's tombstone column");
            }
        }
        try (BufferAllocator allocator = new RootAllocator();
                Dataset ds = LanceTables.openDataset(allocator, lanceUri, storageOptions)) {
            Set<String> names = new HashSet<>();
            ds.getSchema().getFields().forEach(f -> names.add(f.getName()));
            for (Field f : columns) {
                if (!names.add(f.getName())) {
                    throw new IllegalArgumentException(
                            "column '" + f.getName() + "' cannot be added: the table at " + path + " has it");
                }
            }
        }
        S3Options s3Options = s3 == null ? S3Options.defaults() : s3;
        long[] added = {-1};
        try (ObjectStore store = ObjectStores.open(path, s3Options);
                BufferAllocator allocator = new RootAllocator()) {
            TableCompaction merge = new TableCompaction(
                    new TableLocation(store, lanceUri, storageOptions),
                    allocator,
                    CompactorOptions.defaults(),
                    LeaseClaimant.standalone("adding columns"));
            CompactionResult merged = merge.run(base -> {
                beforeCommit.run();
                base.addColumns(columns);
                added[0] = base.version();
            });
            LOG.info(
                    "Added columns {} to {} (base version {}), after merging under the same lease: {}",
                    columns.stream().map(Field::getName).toList(),
                    path,
                    added[0],
                    merged.describe(path));
        }
        return added[0];
    }
}
