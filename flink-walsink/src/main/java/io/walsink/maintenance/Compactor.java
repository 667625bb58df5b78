package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.ObjectStores;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.Dataset;
import org.lance.cleanup.RemovalStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the shards' published SSTables into the Lance base table, as the MemWAL specification's
 * SSTable compactor does: per shard, oldest generation first, with lance-core's merge-insert on the
 * primary key (the SSTable's rows replace the base table's rows of the same key, its tombstones
 * delete the key), recording the generation in the MemWAL index's {@code compacted_sstables} in the
 * same Lance commit ({@code MergeInsertParams.markGenerationsAsMerged}). Readers then skip the
 * SSTable, and its shard's writer drops it from the shard manifest at its next manifest update.
 *
 * <p>Safe while writers run: it merges only generations a published shard manifest lists, re-reads
 * the manifest and the base table's merge progress before each generation, and never merges a
 * generation twice. A run that fails part-way is retried by running again. One compactor per table
 * at a time: a run takes the table's compaction lease ({@link CompactionLeaseException} when another
 * holds it) and renews it before every commit (see docs/operations.md).
 *
 * <p>No Flink types: run it from a scheduler, a CLI or a test.
 */
@PublicEvolving
public final class Compactor {
    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
    private static final String MEM_WAL = "_mem_wal/";

    private final ObjectStore store;
    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final BufferAllocator allocator;
    private final CompactorOptions options;
    private final CommitHook hook;
    private final LeaseClaimant claimant;

    /**
     * @param store the table's object store (it reads the shard manifests)
     * @param tableUri the base table as lance-core opens it
     * @param storageOptions lance-core's storage options for the table and its SSTables
     */
    public Compactor(
            ObjectStore store,
            String tableUri,
            Map<String, String> storageOptions,
            BufferAllocator allocator,
            CompactorOptions options) {
        this(
                store,
                tableUri,
                storageOptions,
                allocator,
                options,
                CommitHook.NONE,
                LeaseClaimant.standalone("compactor"));
    }

    /**
     * As the sink runs it: the compaction lease is taken for {@code claimant}, which takes back at
     * once an entry its own job's earlier attempt left (walsink's internal use).
     */
    public Compactor(
            ObjectStore store,
            String tableUri,
            Map<String, String> storageOptions,
            BufferAllocator allocator,
            CompactorOptions options,
            LeaseClaimant claimant) {
        this(store, tableUri, storageOptions, allocator, options, CommitHook.NONE, claimant);
    }

    Compactor(
            ObjectStore store,
            String tableUri,
            Map<String, String> storageOptions,
            BufferAllocator allocator,
            CompactorOptions options,
            CommitHook hook) {
        this(store, tableUri, storageOptions, allocator, options, hook, LeaseClaimant.standalone("compactor"));
    }

    private Compactor(
            ObjectStore store,
            String tableUri,
            Map<String, String> storageOptions,
            BufferAllocator allocator,
            CompactorOptions options,
            CommitHook hook,
            LeaseClaimant claimant) {
        this.claimant = Objects.requireNonNull(claimant, "claimant");
        this.store = Objects.requireNonNull(store, "store");
        this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
        this.storageOptions = Map.copyOf(storageOptions);
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.options = Objects.requireNonNull(options, "options");
        this.hook = hook;
    }

    /**
     * Compacts the table at {@code path} ({@code file:///...}, a plain path or {@code s3://bucket/prefix},
     * as the sink's {@code path}) once.
     *
     * @param s3 used only for {@code s3://} paths; null for the defaults
     */
    public static CompactionResult compact(String path, S3Options s3, CompactorOptions options) {
        StorageLocation location = StorageLocation.parse(path);
        S3Options s3Options = s3 == null ? S3Options.defaults() : s3;
        try (ObjectStore store = ObjectStores.open(path, s3Options);
                BufferAllocator allocator = new RootAllocator()) {
            return new Compactor(
                            store, location.lanceUri(), LanceStorageOptions.of(location, s3Options), allocator, options)
                    .run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // closing the store
            throw new IllegalStateException("closing the object store of " + path + " failed", e);
        }
    }

    /** One run over every shard of the table, then the optional base table housekeeping. */
    public CompactionResult run() {
        long started = System.nanoTime();
        List<CompactionResult.ShardResult> results = new ArrayList<>();
        try (CompactionLease taken = CompactionLease.acquire(
                        store, tableUri, claimant, options.leaseDuration(), System::currentTimeMillis);
                Dataset base = LanceTables.openDataset(allocator, tableUri, storageOptions)) {
            GenerationMerge merge = new GenerationMerge(base, tableUri, storageOptions, allocator, hook, taken);
            TableInfo table = LanceTables.describe(tableUri, base);
            Set<UUID> shards = shards();
            LOG.info("Compacting {}: {} shards, primary key {}", tableUri, shards.size(), table.primaryKey());
            for (UUID shard : shards) {
                results.add(compactShard(base, table, shard, merge));
            }
            boolean filesCompacted = false;
            if (options.fileCompaction().isPresent()) {
                base.checkoutLatest();
                long before = base.version();
                taken.renew();
                base.compact(options.fileCompaction().get());
                base.checkoutLatest();
                filesCompacted = true;
                LOG.info("Compacted the files of {}: version {} -> {}", tableUri, before, base.version());
            }
            Optional<Long> cleaned = Optional.empty();
            if (options.cleanup().isPresent()) {
                taken.renew();
                RemovalStats removed = base.cleanupWithPolicy(options.cleanup().get());
                cleaned = Optional.of(removed.getOldVersions());
                LOG.info(
                        "Cleaned up {}: {} old versions, {} bytes removed",
                        tableUri,
                        removed.getOldVersions(),
                        removed.getBytesRemoved());
            }
            base.checkoutLatest();
            CompactionResult result =
                    new CompactionResult(tableUri, results, base.version(), filesCompacted, cleaned, since(started));
            LOG.info(
                    "Compacted {}: {} generations merged over {} shards in {} ms, base version {}",
                    tableUri,
                    result.mergedGenerations(),
                    results.size(),
                    result.duration().toMillis(),
                    result.baseVersion());
            return result;
        }
    }

    private CompactionResult.ShardResult compactShard(
            Dataset base, TableInfo table, UUID shard, GenerationMerge merge) {
        long started = System.nanoTime();
        ManifestStore manifests = new ManifestStore(store, shard);
        Optional<ShardManifest> read = manifests.readLatest();
        base.checkoutLatest();
        long merged = MergedGenerations.of(base, tableUri).getOrDefault(shard, 0L);
        List<Long> done = new ArrayList<>();
        long upserted = 0;
        long deleted = 0;
        String stopped = null;
        if (read.isPresent()) {
            // Only what a published manifest lists, oldest first, and nothing merged already.
            List<SsTable> candidates = read.get().sstables().stream()
                    .filter(t -> t.generation() > merged)
                    .sorted(Comparator.comparingLong(SsTable::generation))
                    .toList();
            for (SsTable t : candidates) {
                if (done.size() >= options.maxGenerationsPerShard()) {
                    stopped = "the limit of " + options.maxGenerationsPerShard() + " generations per run";
                    break;
                }
                // A restore of an older checkpoint may have rolled the generation back since we read.
                if (!stillListed(manifests, t)) {
                    stopped =
                            "generation " + t.generation() + " (" + t.path() + ") is no longer in the latest manifest";
                    LOG.warn("Shard {}: {}; stopping this shard's merges", shard, stopped);
                    break;
                }
                Optional<long[]> counts = merge.merge(table, shard, t);
                if (counts.isPresent()) {
                    done.add(t.generation());
                    upserted += counts.get()[0];
                    deleted += counts.get()[1];
                }
            }
        }
        base.checkoutLatest();
        long through = MergedGenerations.of(base, tableUri).getOrDefault(shard, 0L);
        CompactionResult.ShardResult result = new CompactionResult.ShardResult(
                shard, done, through, upserted, deleted, Optional.ofNullable(stopped), since(started));
        LOG.info(
                "Shard {}: merged generations {} ({} rows upserted, {} keys deleted), merged through {} in {} ms",
                shard,
                done,
                upserted,
                deleted,
                through,
                result.duration().toMillis());
        return result;
    }

    private static boolean stillListed(ManifestStore manifests, SsTable t) {
        return manifests
                .readLatest()
                .map(m -> m.sstables().stream()
                        .anyMatch(s ->
                                s.generation() == t.generation() && s.path().equals(t.path())))
                .orElse(false);
    }

    /** The shard folders under {@code _mem_wal/} that hold a manifest, in UUID order. */
    private Set<UUID> shards() {
        Set<UUID> shards = new TreeSet<>();
        for (ObjectMeta meta : store.listAll(MEM_WAL)) {
            String[] parts = meta.key().split("/");
            if (parts.length >= 3 && parts[2].equals("manifest")) {
                ManifestStore.parseShardFolder(parts[1]).ifPresent(shards::add);
            }
        }
        return shards;
    }

    private static Duration since(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }
}
