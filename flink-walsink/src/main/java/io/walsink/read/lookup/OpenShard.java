package io.walsink.read.lookup;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.TableLocation;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * One shard's published SSTables as of one manifest version, opened once and kept for the
 * lookups that follow: opening a Lance dataset reads its manifest, which would otherwise cost
 * more than the filtered scan of a key.
 */
final class OpenShard implements AutoCloseable {
    /** An opened SSTable; {@code uri} names it in errors. */
    record Generation(long generation, String uri, Dataset dataset) {}

    private final UUID shardId;
    private final long manifestVersion;
    private final List<Generation> generations;

    private OpenShard(UUID shardId, long manifestVersion, List<Generation> generations) {
        this.shardId = shardId;
        this.manifestVersion = manifestVersion;
        this.generations = generations;
    }

    /** The shard's latest manifest version with its SSTables by generation; none when it has no manifest yet. */
    static OpenShard open(TableLocation location, BufferAllocator allocator, UUID shardId) {
        Optional<ShardManifest> latest = new ManifestStore(location.store(), shardId).readLatest();
        if (latest.isEmpty()) {
            return new OpenShard(shardId, 0, List.of());
        }
        List<SsTable> sstables = latest.get().sstables().stream()
                .sorted(Comparator.comparingLong(SsTable::generation))
                .toList();
        List<Generation> opened = new ArrayList<>();
        try {
            for (SsTable sstable : sstables) {
                String uri = location.ssTableUri(shardId, sstable.path());
                opened.add(new Generation(sstable.generation(), uri, location.open(allocator, uri)));
            }
        } catch (RuntimeException e) {
            opened.forEach(g -> g.dataset().close());
            throw e;
        }
        return new OpenShard(shardId, latest.get().version(), List.copyOf(opened));
    }

    /**
     * Whether the shard still has no newer manifest version: two existence checks instead of
     * reading the manifest. Garbage collection removes versions in ascending order, so when the
     * next version is missing and ours is still there, the next one was never written (rather
     * than written and collected).
     */
    boolean current(ObjectStore store) {
        ManifestStore manifests = new ManifestStore(store, shardId);
        if (manifestVersion == 0) {
            return manifests.readLatest().isEmpty();
        }
        return !store.exists(manifests.versionKey(manifestVersion + 1))
                && store.exists(manifests.versionKey(manifestVersion));
    }

    UUID shardId() {
        return shardId;
    }

    long manifestVersion() {
        return manifestVersion;
    }

    /** By generation, oldest first. */
    List<Generation> generations() {
        return generations;
    }

    @Override
    public void close() {
        generations.forEach(g -> g.dataset().close());
    }
}
