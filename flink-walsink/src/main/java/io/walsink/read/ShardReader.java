package io.walsink.read;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.SsTableFolder;
import io.walsink.storage.ObjectStore;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what one shard adds on top of the base table: its latest manifest's published SSTables
 * in generation order, then (in {@link ReadMode#LATEST}) its WAL entries from
 * {@code replay_after + 1} upwards until a position is missing, skipping fence sentinels.
 */
final class ShardReader {
    private static final Logger LOG = LoggerFactory.getLogger(ShardReader.class);

    private final ObjectStore store;
    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final UUID shardId;
    private final WalSchemaProfile profile;
    private final BufferAllocator allocator;

    /**
     * @param store the table's object store (manifests and WAL entries)
     * @param storageOptions lance-core options for the SSTable datasets
     * @param profile the WAL schema profile the shard's writer uses (decides the entry schema)
     */
    public ShardReader(
            ObjectStore store,
            String tableUri,
            Map<String, String> storageOptions,
            UUID shardId,
            WalSchemaProfile profile,
            BufferAllocator allocator) {
        this.store = Objects.requireNonNull(store, "store");
        this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
        this.storageOptions = Map.copyOf(storageOptions);
        this.shardId = Objects.requireNonNull(shardId, "shardId");
        this.profile = Objects.requireNonNull(profile, "profile");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    public UUID shardId() {
        return shardId;
    }

    /**
     * The shard's rows alone (no base table), merged newest-wins.
     *
     * @throws TableNotFoundException if there is no table at the URI
     * @throws FormatException (or a subtype) naming the manifest, SSTable or WAL entry at fault
     */
    public TableRows read(ReadMode mode) {
        TableColumns layout;
        try (Dataset base = LanceTables.openDataset(allocator, tableUri, storageOptions)) {
            layout = TableColumns.of(base);
        }
        MergedRows<Map<String, Object>> rows = new MergedRows<>(layout, RowValues.extractor(layout.columns()));
        applyTo(rows, layout.storage(profile), mode, 0, latestManifest());
        return new TableRows(layout.columns(), layout.primaryKey(), rows.live());
    }

    /** The shard's latest manifest, empty when it has none yet. */
    Optional<ShardManifest> latestManifest() {
        return new ManifestStore(store, shardId).readLatest();
    }

    /**
     * Applies the rows of manifest version {@code latest} of the shard to {@code rows}, skipping
     * SSTables of generation <= {@code compactedThrough}.
     */
    void applyTo(
            MergedRows<?> rows,
            WalStorageSchema storage,
            ReadMode mode,
            long compactedThrough,
            Optional<ShardManifest> latest) {
        if (latest.isEmpty()) {
            LOG.debug("Shard {} has no manifest yet; nothing to read", shardId);
            return;
        }
        ShardManifest manifest = latest.get();
        List<SsTable> sstables = manifest.sstables().stream()
                .filter(t -> t.generation() > compactedThrough)
                .sorted(Comparator.comparingLong(SsTable::generation))
                .toList();
        for (SsTable sstable : sstables) {
            String uri = SsTableFolder.uri(tableUri, shardId, sstable.path());
            try (Dataset ds = openSsTable(uri, sstable)) {
                DatasetBatches.forEach(ds, uri, storageOptions, batch -> rows.apply(batch, uri));
            }
        }
        if (mode == ReadMode.LATEST) {
            WalLog wal = new WalLog(store, shardId, new WalEntryCodec(storage, allocator));
            long first = manifest.replayAfterWalEntryPosition() + 1;
            long missing = wal.readFrom(first, entry -> {
                if (!entry.sentinel()) {
                    String where = wal.key(entry.position());
                    entry.batches().forEach(batch -> rows.apply(batch, where));
                }
            });
            LOG.debug("Shard {}: {} SSTables, WAL tail {}..{}", shardId, sstables.size(), first, missing - 1);
        }
    }

    private Dataset openSsTable(String uri, SsTable sstable) {
        try {
            return LanceTables.openDataset(allocator, uri, storageOptions);
        } catch (TableNotFoundException e) {
            throw new FormatException(
                    uri,
                    "SSTable generation " + sstable.generation() + " is published in the manifest of shard " + shardId
                            + " but missing",
                    e);
        }
    }
}
