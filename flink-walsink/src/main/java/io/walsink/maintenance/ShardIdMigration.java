package io.walsink.maintenance;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardManifestCodec;
import io.walsink.format.manifest.TableShards;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.recovery.CompactionLease;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Moves the shards that earlier releases named by their own ids to the ids Lance's writers
 * derive ({@code walsink migrate-shard-ids}). Writers of the table must be stopped; the run holds the
 * compaction lease, so no compactor merges meanwhile.
 *
 * <p>Per shard: seal the old shard (a writer of the previous release started by mistake refuses a
 * sealed shard), copy its WAL entries, SSTable folders and garbage-collection floor unchanged to
 * the new id, then every manifest version under the same version number with the new shard id, the
 * sealing version written back ACTIVE, and SSTables the base table already merged left out (the base
 * table's merge progress is recorded under the old id, which no reader looks up any more); then
 * delete the old shard. Everything a checkpoint descriptor points at (manifest versions, WAL
 * positions, generations, SSTable paths) is the same under the new id, so the writer restores a
 * descriptor of the previous release by its bucket. Rerunning after a crash continues: an object
 * already copied must be byte-identical, anything else is refused.
 */
@Internal
public final class ShardIdMigration {
    /** One shard moved (or to move): its bucket (0 for an unsharded table) and both ids. */
    public record Move(int bucket, UUID from, UUID to) {}

    private final ObjectStore store;
    private final String tableUri;
    private final Map<String, String> storageOptions;
    private final BufferAllocator allocator;

    public ShardIdMigration(
            ObjectStore store, String tableUri, Map<String, String> storageOptions, BufferAllocator allocator) {
        this.store = store;
        this.tableUri = tableUri;
        this.storageOptions = Map.copyOf(storageOptions);
        this.allocator = allocator;
    }

    /** The moves a run would make; empty when the table needs none. */
    public List<Move> plan() {
        TableShards shards = shards(LanceTables.open(tableUri, storageOptions, true));
        List<Move> moves = new ArrayList<>();
        shards.legacy().forEach((bucket, from) -> moves.add(new Move(bucket, from, shards.lanceId(bucket))));
        return moves;
    }

    /** Makes the moves, reporting each step to {@code progress}. */
    public List<Move> run(Consumer<String> progress) {
        List<Move> moves = plan();
        if (moves.isEmpty()) {
            return moves;
        }
        try (CompactionLease lease =
                CompactionLease.acquire(store, tableUri, holder(), Duration.ofMinutes(10), System::currentTimeMillis)) {
            Map<UUID, Long> merged = MergedGenerations.latest(allocator, tableUri, storageOptions);
            for (Move m : moves) {
                move(m, merged.getOrDefault(m.from(), 0L), progress);
                lease.renew();
            }
        }
        return moves;
    }

    private TableShards shards(TableInfo table) {
        OptionalInt buckets = table.sharding().sharding().transform() == ShardTransform.BUCKET
                ? table.sharding().sharding().numBuckets()
                : OptionalInt.empty();
        return TableShards.read(
                store, table.sharding().specId(), buckets, !table.primaryKey().isEmpty());
    }

    private void move(Move m, long mergedThrough, Consumer<String> progress) {
        ManifestStore from = new ManifestStore(store, m.from());
        ManifestStore to = new ManifestStore(store, m.to());
        String fromFolder = TableLayout.shardFolder(m.from());
        String toFolder = TableLayout.shardFolder(m.to());
        ShardManifest latest = from.readLatest()
                .orElseThrow(() -> new FormatException(location(fromFolder), "shard has no manifest to migrate", null));
        requireOnlyOurCopy(from, to, m, latest, mergedThrough);
        if (!latest.isSealed()) {
            latest = from.writeNext(
                    latest, latest.withWriterEpoch(latest.writerEpoch() + 1).sealed());
            progress.accept("sealed shard " + m.from() + " at manifest version " + latest.version());
        }
        GcFloor.read(store, m.from()).ifPresent(floor -> GcFloor.write(store, m.to(), floor));
        int copied = 0;
        String fromManifests = TableLayout.manifestFolder(m.from());
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            if (!meta.key().startsWith(fromManifests)) {
                copy(meta.key(), store.get(meta.key()), toFolder + meta.key().substring(fromFolder.length()));
                copied++;
            }
        }
        for (long v : from.listVersions()) {
            copy(
                    from.versionKey(v),
                    manifestUnder(m.to(), from.read(v), latest.version(), mergedThrough),
                    to.versionKey(v));
        }
        if (store.exists(from.hintKey())) {
            store.put(to.hintKey(), store.get(from.hintKey()));
        }
        progress.accept("copied shard " + m.from() + " to " + m.to() + " (bucket " + m.bucket() + "): " + copied
                + " objects and manifest versions through " + latest.version());
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            if (!meta.key().startsWith(fromManifests)) {
                store.delete(meta.key());
            }
        }
        for (ObjectMeta meta : store.listAll(fromFolder)) {
            store.delete(meta.key());
        }
        if (store.exists(GcFloor.key(m.from()))) {
            store.delete(GcFloor.key(m.from()));
        }
        progress.accept("removed shard " + m.from());
    }

    /** Lance's shard of the bucket may exist only as an earlier, interrupted run of ours left it. */
    private void requireOnlyOurCopy(ManifestStore from, ManifestStore to, Move m, ShardManifest latest, long merged) {
        if (store.listAll(TableLayout.shardFolder(m.to())).isEmpty()) {
            return;
        }
        byte[] ours = manifestUnder(m.to(), from.read(from.listVersions().get(0)), latest.version(), merged);
        long first = from.listVersions().get(0);
        boolean ourCopy = store.exists(to.versionKey(first)) && Arrays.equals(store.get(to.versionKey(first)), ours);
        if (!ourCopy) {
            throw new FormatException(
                    location(TableLayout.shardFolder(m.to())),
                    "Lance's shard of bucket " + m.bucket() + " exists beside shard " + m.from()
                            + " (another writer opened it): the bucket's keys are in two shards, which a migration "
                            + "cannot merge. Compact the table, then remove the younger shard by hand",
                    null);
        }
    }

    private static byte[] manifestUnder(UUID id, ShardManifest m, long sealedVersion, long mergedThrough) {
        ShardManifest moved = m.toBuilder()
                .shardId(id)
                .sstables(m.sstables().stream()
                        .filter(t -> t.generation() > mergedThrough)
                        .toList())
                .build();
        return ShardManifestCodec.encode(m.version() == sealedVersion ? moved.active() : moved);
    }

    private void copy(String fromKey, byte[] bytes, String toKey) {
        try {
            store.putIfAbsent(toKey, bytes);
        } catch (ObjectAlreadyExistsException e) {
            if (!Arrays.equals(store.get(toKey), bytes)) {
                throw new FormatException(
                        location(toKey), "exists and differs from " + location(fromKey) + ", refusing to migrate", e);
            }
        }
    }

    private String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    private static String holder() {
        return "migrate-shard-ids " + ManagementFactory.getRuntimeMXBean().getName();
    }
}
