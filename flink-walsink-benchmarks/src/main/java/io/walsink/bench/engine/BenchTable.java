package io.walsink.bench.engine;

import io.walsink.bench.support.LocalShardTable;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A new one-bucket Lance table for one engine run, in a temporary folder or under an S3 prefix
 * (a server such as s3mock), with the shard context our writer needs and the storage options
 * lance-core's needs. Closing it deletes the table.
 */
final class BenchTable implements AutoCloseable {
    private final String uri;
    private final Path localDir; // null on S3
    private final ObjectStore store;
    private final TableInfo table;
    private final Map<String, String> storageOptions;
    private final TableContext context;

    private BenchTable(
            String uri,
            Path localDir,
            ObjectStore store,
            TableInfo table,
            Map<String, String> storageOptions,
            TableContext context) {
        this.uri = uri;
        this.localDir = localDir;
        this.store = store;
        this.table = table;
        this.storageOptions = storageOptions;
        this.context = context;
    }

    /**
     * @param root a folder or {@code s3://bucket/prefix} under which a new table is made; null for
     *     a new temporary folder
     */
    static BenchTable create(
            String root, S3Options s3, BufferAllocator allocator, ShardWriterConfig config, Schema schema, String key) {
        Path localDir = null;
        String uri;
        if (root == null) {
            localDir = tempDir();
            uri = localDir.resolve("table").toString();
        } else {
            uri = root.replaceAll("/+$", "") + "/table-" + UUID.randomUUID();
        }
        StorageLocation location = StorageLocation.parse(uri);
        Map<String, String> options = LanceStorageOptions.of(location, s3);
        TableInfo table =
                LanceTables.create(location.lanceUri(), schema, List.of(key), TableSharding.bucket(key, 1), options);
        ObjectStore store = ObjectStores.open(uri, s3);
        TableContext context = new TableContext(
                new TableLocation(store, location.lanceUri(), options),
                table,
                WalSchemaProfile.SPEC,
                config,
                allocator);
        return new BenchTable(location.lanceUri(), localDir, store, table, options, context);
    }

    String uri() {
        return uri;
    }

    Map<String, String> storageOptions() {
        return storageOptions;
    }

    TableContext context() {
        return context;
    }

    /** The same table and settings with another allocator (to measure what one open allocates). */
    TableContext contextWith(BufferAllocator allocator) {
        return new TableContext(context.location(), table, WalSchemaProfile.SPEC, context.config(), allocator);
    }

    ShardWriter openShard() {
        return openShard(context, UUID.randomUUID());
    }

    /** Opens (claims and replays) shard {@code shardId} of bucket 0 with {@code ctx}. */
    ShardWriter openShard(TableContext ctx, UUID shardId) {
        return ShardOpener.open(
                ctx, shardId, 0, ShardPlacement.bucket(table.sharding().specId(), 0));
    }

    @Override
    public void close() {
        if (localDir != null) {
            LocalShardTable.deleteRecursively(localDir);
            return;
        }
        for (ObjectMeta object : store.listAll("")) {
            store.delete(object.key());
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("walsink-engine-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
