package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageException;
import io.walsink.storage.StorageLocation;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * Where one table is, as both of its I/O paths reach it: {@code store}, walsink's object store
 * rooted at the table (manifests, WAL entries, {@code _walsink/} records), and {@code uri} with
 * {@code storageOptions}, what lance-core needs to open the base table and the SSTables in its own
 * object store. Writers, readers, the compactor and the tools pass this one value instead of the
 * three parts. The caller that built it owns the store and closes it; this value closes nothing.
 *
 * <p>The WAL schema profile stays beside it: it is a setting of the table's writers (how they
 * encode WAL entries), needed only where WAL entries are written or read, while SSTable writes,
 * compaction, lookups and the tools reach the table without one. Neither is the Arrow allocator
 * part of it: each caller opens datasets into its own allocator and closes them before it.
 *
 * @param uri the base table's URI as lance-core takes it ({@link StorageLocation#lanceUri()})
 * @param storageOptions lance-core's object-store options (empty for local paths; {@link
 *     LanceStorageOptions})
 */
@Internal
public record TableLocation(ObjectStore store, String uri, Map<String, String> storageOptions) {

    public TableLocation {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(uri, "uri");
        storageOptions = Map.copyOf(storageOptions);
    }

    /** The table at {@code path} (local or {@code s3://}), reached through {@code store}, opened on that path. */
    public static TableLocation of(ObjectStore store, String path, S3Options s3) {
        StorageLocation location = StorageLocation.parse(path);
        return new TableLocation(store, location.lanceUri(), LanceStorageOptions.of(location, s3));
    }

    /** The base table at its latest version; the caller closes it before {@code allocator}. */
    public Dataset openBase(BufferAllocator allocator) {
        return LanceTables.openDataset(allocator, uri, storageOptions);
    }

    /** Another dataset of the table (an SSTable, {@link #ssTableUri}), with the same options. */
    public Dataset open(BufferAllocator allocator, String datasetUri) {
        return LanceTables.openDataset(allocator, datasetUri, storageOptions);
    }

    /** The description of the base table ({@link LanceTables#open(String, Map, boolean)}). */
    public TableInfo describe(boolean appendOnlyAllowed) {
        return LanceTables.open(uri, storageOptions, appendOnlyAllowed);
    }

    /**
     * URI of SSTable folder {@code name} of shard {@code shardId}, as lance-core opens it.
     *
     * @throws IllegalArgumentException if {@code name} is not an SSTable folder name, so that no
     *     caller can build a URI outside the shard folder
     */
    public String ssTableUri(UUID shardId, String name) {
        return ssTableUri(uri, shardId, name);
    }

    /** As {@link #ssTableUri(UUID, String)}, under the table at {@code tableUri}. */
    public static String ssTableUri(String tableUri, UUID shardId, String name) {
        String root = tableUri.endsWith("/") ? tableUri : tableUri + "/";
        String key = TableLayout.ssTableFolder(shardId, name);
        return root + key.substring(0, key.length() - 1);
    }

    /** lance-core failing on {@code datasetUri} of this table, explained ({@link LanceFailures#wrap}). */
    public StorageException failure(String datasetUri, String operation, Throwable e) {
        return LanceFailures.wrap(datasetUri, operation, storageOptions, e);
    }

    /** The likely cause of lance-core's S3 failure on {@code datasetUri} ({@link LanceFailures#explain}). */
    public String explain(String datasetUri, Throwable e) {
        return LanceFailures.explain(datasetUri, storageOptions, e);
    }
}
