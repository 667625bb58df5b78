package io.walsink.read.scan;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.read.snapshot.CompactedSsTables;
import io.walsink.read.snapshot.DatasetBatches;
import io.walsink.read.snapshot.ExpiredSnapshot;
import io.walsink.read.snapshot.PinnedBase;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.ShardReader;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * The generations each shard publishes over time, for a reader that follows a table instead of
 * reading one state of it. A generation is published by the manifest version that first lists
 * it; a writer drops it from later versions once compaction merged it into the base table. So
 * the latest manifest alone misses what was merged while the reader was behind, and this walks
 * every manifest version after the last one it was given, in order: manifest versions are
 * numbered without gaps and immutable, so the walk finds every published generation once.
 * What it reads stays readable for as long as garbage collection keeps it
 * ({@code sink.gc.retention}); past that it fails, naming the shard and the
 * generation, rather than skip changes.
 */
@Internal
public final class GenerationLog {
    private final TableLocation location;
    private final ObjectStore store;
    private final String tableUri;
    private final BufferAllocator allocator;

    /**
     * @param location the table: its store (manifests), base table and SSTables
     */
    public GenerationLog(TableLocation location, BufferAllocator allocator) {
        this.location = Objects.requireNonNull(location, "location");
        this.store = location.store();
        this.tableUri = location.uri();
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    /** What a shard published after a given manifest version, in generation order. */
    public record Publications(long manifestVersion, List<SsTable> generations, int bucket) {
        public Publications {
            generations = List.copyOf(generations);
        }
    }

    /**
     * Per shard of {@code snapshot}, the last generation whose rows the snapshot holds: the newest
     * its pinned manifest version lists, or the newest the pinned base version merged, whichever
     * is higher (a generation published after the manifest was pinned may already be merged into
     * the base version read after it). Following a shard from there repeats nothing the snapshot
     * holds and misses nothing it does not.
     */
    public Map<UUID, Long> coveredBy(TableSnapshot snapshot) {
        Map<UUID, Long> merged;
        try (Dataset base = PinnedBase.open(allocator, location, snapshot)) {
            merged = CompactedSsTables.of(base, tableUri);
        }
        Map<UUID, Long> covered = new HashMap<>();
        for (PinnedShard shard : snapshot.shards()) {
            long through = merged.getOrDefault(shard.shardId(), 0L);
            if (shard.manifestVersion() > 0) {
                ManifestStore manifests = new ManifestStore(store, shard.shardId());
                ShardManifest manifest;
                try {
                    manifest = manifests.read(shard.manifestVersion());
                } catch (ObjectNotFoundException e) {
                    throw ExpiredSnapshot.of(
                            manifests.location(manifests.versionKey(shard.manifestVersion())),
                            "manifest version " + shard.manifestVersion() + " of shard " + shard.shardId(),
                            tableUri,
                            snapshot,
                            null);
                }
                for (SsTable t : manifest.sstables()) {
                    through = Math.max(through, t.generation());
                }
            }
            covered.put(shard.shardId(), through);
        }
        return covered;
    }

    /**
     * The generations above {@code afterGeneration} that manifest versions after
     * {@code afterVersion} list, through the latest version, ascending and each once.
     *
     * @throws GarbageCollectedException if a manifest version in between is gone: the reader fell
     *     further behind than garbage collection keeps
     */
    public Publications since(UUID shard, long afterVersion, long afterGeneration) {
        ManifestStore manifests = new ManifestStore(store, shard);
        Optional<ShardManifest> latest = manifests.readLatest();
        if (latest.isEmpty() || latest.get().version() <= afterVersion) {
            return new Publications(
                    afterVersion, List.of(), latest.map(GenerationLog::bucketOf).orElse(PinnedShard.NO_BUCKET));
        }
        TreeMap<Long, SsTable> found = new TreeMap<>();
        for (long v = afterVersion + 1; v < latest.get().version(); v++) {
            ShardManifest manifest;
            try {
                manifest = manifests.read(v);
            } catch (ObjectNotFoundException e) {
                throw behind(
                        manifests.location(manifests.versionKey(v)),
                        "manifest version " + v + " of shard " + shard + ", which lists the generations after "
                                + afterGeneration + " published since version " + afterVersion + " was read,");
            }
            collect(manifest, afterGeneration, found);
        }
        collect(latest.get(), afterGeneration, found);
        return new Publications(latest.get().version(), new ArrayList<>(found.values()), bucketOf(latest.get()));
    }

    private static void collect(ShardManifest manifest, long afterGeneration, TreeMap<Long, SsTable> found) {
        manifest.sstables().stream()
                .filter(t -> t.generation() > afterGeneration)
                .sorted(Comparator.comparingLong(SsTable::generation))
                .forEach(t -> found.putIfAbsent(t.generation(), t));
    }

    /**
     * Every row of one generation's SSTable in storage order (newest row per key, tombstones
     * included: the extractor sees {@code _tombstone}). An SSTable is immutable, so the order is
     * the same on every read, and a row offset within it is an exact position.
     *
     * @throws GarbageCollectedException if its folder is gone
     */
    public <R> List<R> read(UUID shard, SsTable generation, RowExtractor<R> extractor) {
        String uri = location.ssTableUri(shard, generation.path());
        Dataset ds;
        try {
            ds = location.open(allocator, uri);
        } catch (TableNotFoundException e) {
            throw behind(uri, "SSTable generation " + generation.generation() + " of shard " + shard);
        }
        List<R> rows = new ArrayList<>();
        try (ds) {
            DatasetBatches.forEach(ds, uri, location, batch -> {
                for (int r = 0; r < batch.getRowCount(); r++) {
                    rows.add(extractor.extract(batch, r));
                }
            });
        }
        return rows;
    }

    /**
     * The bucket a shard's latest manifest names ({@link PinnedShard#NO_BUCKET} if none): one
     * read, to decide whether a shard is this reader's before walking its history.
     */
    public int bucketOf(UUID shard) {
        return new ManifestStore(store, shard)
                .readLatest()
                .map(GenerationLog::bucketOf)
                .orElse(PinnedShard.NO_BUCKET);
    }

    /** The table's shards now (see {@link TableLayout#shards}). */
    public Set<UUID> shards() {
        return TableLayout.shards(store);
    }

    private static int bucketOf(ShardManifest manifest) {
        return ShardReader.bucketOf(manifest);
    }

    private GarbageCollectedException behind(String location, String what) {
        return new GarbageCollectedException(
                location,
                what + " of table " + tableUri + " is missing, though a continuous read has not emitted it yet:"
                        + " garbage collection removed it, or it was lost. A continuous read must stay within "
                        + ExpiredSnapshot.RETENTION_OPTION + " of the writers (restarts and backlogs included):"
                        + " raise it, or start the read again (it then begins with a new snapshot)");
    }
}
