package io.walsink.testing;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.memwal.LsmScanner;
import org.lance.memwal.ShardSnapshot;

/**
 * lance-core 7.0.0 as an independent reader of what we publish: {@link ShardSnapshot}s built from
 * our latest shard manifests, scanned with {@link LsmScanner#fromSnapshots}. It sees the base table
 * and the published SSTables only (never the WAL) and ignores {@code _tombstone}.
 */
public final class LanceOracle {
    private LanceOracle() {}

    /** One snapshot per shard that has a manifest: spec id, current generation, published SSTables. */
    public static List<ShardSnapshot> snapshots(ObjectStore store, Collection<UUID> shards) {
        return snapshots(store, shards, Map.of());
    }

    /** As above, leaving out SSTables of generation <= {@code compacted} of their shard. */
    public static List<ShardSnapshot> snapshots(ObjectStore store, Collection<UUID> shards, Map<UUID, Long> compacted) {
        List<ShardSnapshot> snapshots = new ArrayList<>();
        for (UUID shard : shards) {
            Optional<ShardManifest> latest = new ManifestStore(store, shard).readLatest();
            if (latest.isEmpty()) {
                continue;
            }
            ShardManifest m = latest.get();
            ShardSnapshot snapshot = new ShardSnapshot(shard.toString())
                    .withSpecId(m.shardSpecId())
                    .withCurrentGeneration(m.currentGeneration());
            long skipThrough = compacted.getOrDefault(shard, 0L);
            for (SsTable t : m.sstables()) {
                if (t.generation() <= skipThrough) {
                    continue;
                }
                snapshot = snapshot.withFlushedGeneration(t.generation(), t.path());
            }
            snapshots.add(snapshot);
        }
        return snapshots;
    }

    /** The table's rows as lance-core merges them, {@code columns} only, in lance-core's order. */
    public static List<Map<String, Object>> scan(
            BufferAllocator allocator,
            String uri,
            Map<String, String> options,
            List<ShardSnapshot> snapshots,
            List<String> columns) {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Dataset ds = Dataset.open(
                        allocator,
                        uri,
                        new ReadOptions.Builder().setStorageOptions(options).build());
                LsmScanner scanner = LsmScanner.fromSnapshots(ds, snapshots).project(columns);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(LanceRows.all(reader.getVectorSchemaRoot()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return rows;
    }
}
