package io.walsink.testing;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.MergedGenerations;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
        return snapshots(latestManifests(store, shards), compacted);
    }

    /** The latest manifest of each shard that has one. */
    private static List<ShardManifest> latestManifests(ObjectStore store, Collection<UUID> shards) {
        List<ShardManifest> manifests = new ArrayList<>();
        for (UUID shard : shards) {
            new ManifestStore(store, shard).readLatest().ifPresent(manifests::add);
        }
        return manifests;
    }

    private static List<ShardSnapshot> snapshots(List<ShardManifest> manifests, Map<UUID, Long> compacted) {
        List<ShardSnapshot> snapshots = new ArrayList<>();
        for (ShardManifest m : manifests) {
            UUID shard = m.shardId();
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

    /**
     * The published table as lance-core reads it while writers and compaction run, one snapshot
     * taken in {@code TableReader}'s order: each shard's latest manifest first, then the base table
     * at its latest version, leaving out the SSTables that version's merge progress holds (lance-core
     * would otherwise read a merged SSTable's value over the base table's newer one). {@code columns}
     * only, in lance-core's order; deleted keys read as rows whose other columns are null (lance-core
     * 7.0.0 ignores {@code _tombstone}).
     */
    public static List<Map<String, Object>> scanPublished(
            BufferAllocator allocator,
            String uri,
            Map<String, String> options,
            ObjectStore store,
            Collection<UUID> shards,
            List<String> columns) {
        List<ShardManifest> manifests = latestManifests(store, shards);
        try (Dataset ds = Dataset.open(
                allocator,
                uri,
                new ReadOptions.Builder().setStorageOptions(options).build())) {
            return scan(ds, snapshots(manifests, MergedGenerations.of(ds, uri)), columns);
        }
    }

    /** The table's rows as lance-core merges them, {@code columns} only, in lance-core's order. */
    public static List<Map<String, Object>> scan(
            BufferAllocator allocator,
            String uri,
            Map<String, String> options,
            List<ShardSnapshot> snapshots,
            List<String> columns) {
        try (Dataset ds = Dataset.open(
                allocator,
                uri,
                new ReadOptions.Builder().setStorageOptions(options).build())) {
            return scan(ds, snapshots, columns);
        }
    }

    private static List<Map<String, Object>> scan(Dataset ds, List<ShardSnapshot> snapshots, List<String> columns) {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (LsmScanner scanner = LsmScanner.fromSnapshots(ds, snapshots).project(columns);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(LanceRows.all(reader.getVectorSchemaRoot()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return rows;
    }

    /**
     * An append table (no primary key, which {@code LsmScanner} refuses) as plain lance-core reads
     * it: the base table's rows, then those of every SSTable the shards' latest manifests list above
     * the base's merge progress, each opened as the Lance dataset it is (tombstones excluded).
     */
    public static List<Map<String, Object>> scanAppendTable(
            BufferAllocator allocator, String uri, ObjectStore store, Collection<UUID> shards) {
        List<ShardManifest> manifests = latestManifests(store, shards);
        List<Map<String, Object>> rows = new ArrayList<>();
        Map<UUID, Long> merged;
        try (Dataset ds = Dataset.open(allocator, uri, new ReadOptions.Builder().build())) {
            merged = MergedGenerations.of(ds, uri);
            rows.addAll(LanceRows.scan(ds));
        }
        for (ShardManifest m : manifests) {
            for (SsTable t : m.sstables()) {
                if (t.generation() > merged.getOrDefault(m.shardId(), 0L)) {
                    String path = io.walsink.format.table.TableLocation.ssTableUri(uri, m.shardId(), t.path());
                    rows.addAll(LanceRows.scan(allocator, path, Map.of()));
                }
            }
        }
        rows.forEach(r -> r.remove("_tombstone"));
        return rows;
    }
}
