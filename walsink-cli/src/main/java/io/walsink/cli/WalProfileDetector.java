package io.walsink.cli;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.wal.AnyProfileDecoder;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Which WAL schema profile the table's writers use, for reading its WAL tail: the writer's setting
 * is recorded nowhere, so the first data entry after some shard's {@code replay_after} decides
 * (entries at or below it are never read). The spec profile when no shard has such an entry.
 */
@Internal
final class WalProfileDetector {
    private WalProfileDetector() {}

    static WalSchemaProfile detect(String path, S3Options s3) {
        StorageLocation location = StorageLocation.parse(path);
        TableInfo table = LanceTables.open(location.lanceUri(), LanceStorageOptions.of(location, s3), true);
        try (ObjectStore store = ObjectStores.open(path, s3);
                BufferAllocator allocator = new RootAllocator()) {
            AnyProfileDecoder decoder = new AnyProfileDecoder(table, allocator);
            for (UUID shard : TableLayout.shards(store)) {
                Optional<WalSchemaProfile> found = firstProfile(store, decoder, shard);
                if (found.isPresent()) {
                    return found.get();
                }
            }
        }
        return WalSchemaProfile.SPEC;
    }

    private static Optional<WalSchemaProfile> firstProfile(ObjectStore store, AnyProfileDecoder decoder, UUID shard) {
        long replayAfter = new ManifestStore(store, shard)
                .readLatest()
                .map(ShardManifest::replayAfterWalEntryPosition)
                .orElse(0L);
        for (long p : WalLog.listEntries(store, shard).keySet()) {
            if (p <= replayAfter) {
                continue; // never read again
            }
            String key = TableLayout.walEntryKey(shard, p);
            String root = store.describe();
            String where = root.endsWith("/") ? root + key : root + "/" + key;
            try (AnyProfileDecoder.Decoded d = decoder.decode(where, p, store.get(key))) {
                if (d.profile().isPresent()) {
                    return d.profile();
                }
            } catch (ObjectNotFoundException gone) {
                // removed since the listing; the next one decides
            }
        }
        return Optional.empty();
    }
}
