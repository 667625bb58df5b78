package io.walsink.maintenance.gc;

import io.walsink.format.MemWalListing;
import io.walsink.format.MemWalObject;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.GcFloorRecords;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What one shard loses in a garbage collection, decided from one listing before anything is
 * removed; {@code raisedFloor} is null when the floors stay where they are. Planning is kept apart
 * from {@link GarbageCollector}'s removal so that the rules (retention, the newest versions kept,
 * retained checkpoints, live consumers) read in one place.
 */
record ShardGcPlan(
        UUID shard,
        ManifestStore manifests,
        long latest,
        GcFloorRecords.Recorded seenFloor,
        GcFloor raisedFloor,
        List<ObjectMeta> versions,
        List<ObjectMeta> wal,
        Map<String, List<ObjectMeta>> folders) {

    static ShardGcPlan of(
            ObjectStore store,
            int keepManifestVersions,
            Duration retention,
            UUID shard,
            List<MemWalListing.Listed> objects,
            Instant now,
            Instant cutoff,
            ConsumerNeeds consumers) {
        ManifestStore manifests = new ManifestStore(store, shard);
        TreeMap<Long, ObjectMeta> versions = new TreeMap<>();
        TreeMap<Long, ObjectMeta> positions = new TreeMap<>();
        TreeMap<String, List<ObjectMeta>> folders = new TreeMap<>();
        Map<String, Long> generations = new HashMap<>();
        for (MemWalListing.Listed listed : objects) {
            MemWalObject object = listed.object();
            switch (object.kind()) {
                case MANIFEST_VERSION -> versions.put(object.number(), listed.meta());
                case WAL_ENTRY -> positions.put(object.number(), listed.meta());
                case SSTABLE_FILE -> {
                    String name = object.ssTableFolder().orElseThrow();
                    folders.computeIfAbsent(name, k -> new ArrayList<>()).add(listed.meta());
                    generations.put(name, object.number());
                }
                default -> {} // the hint, temporary files (removed below with every leftover), strangers: kept
            }
        }
        Optional<ShardManifest> latestRead = manifests.readLatest();
        if (latestRead.isEmpty()) {
            // Its versions were removed since the listing (a migrated shard): nothing here can be judged.
            return new ShardGcPlan(shard, manifests, 0, null, null, List.of(), List.of(), Map.of());
        }
        long latest = latestRead.get().version();
        GcFloorRecords.Recorded seenFloor = GcFloorRecords.read(store, shard);
        GcFloor oldFloor = seenFloor.floorOrNone();

        // Manifest versions: the prefix that is neither among the newest N nor superseded recently.
        long manifestFloor = oldFloor.manifestFloor();
        for (Map.Entry<Long, ObjectMeta> e : versions.headMap(latest).entrySet()) {
            long v = e.getKey();
            if (v < manifestFloor) {
                continue; // below the floor already (an interrupted earlier run): removed below
            }
            ObjectMeta successor = versions.get(v + 1);
            boolean removable = v <= latest - keepManifestVersions
                    && successor != null
                    && old(e.getValue(), cutoff)
                    && old(successor, cutoff);
            if (!removable) {
                break;
            }
            manifestFloor = v + 1;
        }
        long retentionFloor = Math.min(manifestFloor, latest);
        // A live consumer's versions stay too, but only retained checkpoints replay WAL entries.
        ConsumerNeeds.Need consumed = consumers.of(shard, ConsumerNeeds.bucketOf(latestRead.get()));
        manifestFloor = Math.max(oldFloor.manifestFloor(), Math.min(retentionFloor, consumed.manifestVersion()));

        // What the kept versions, and hence the retained checkpoints and live consumers, can need.
        long minReplayAfter = Long.MAX_VALUE;
        long minGeneration = Long.MAX_VALUE;
        Set<String> referenced = new HashSet<>();
        for (long v = Math.max(manifestFloor, 1); v <= latest; v++) {
            ShardManifest m = v == latest ? latestRead.get() : manifests.read(v);
            if (v >= retentionFloor) {
                minReplayAfter = Math.min(minReplayAfter, m.replayAfterWalEntryPosition());
                minGeneration = Math.min(minGeneration, m.currentGeneration());
            }
            for (SsTable t : m.sstables()) {
                referenced.add(t.path());
            }
        }

        // WAL entries: a prefix at or below the lowest kept replay_after, never the newest entry.
        long highest = positions.isEmpty() ? 0 : positions.lastKey();
        long walFloor = oldFloor.walFloor();
        List<ObjectMeta> walRemoved = new ArrayList<>();
        for (Map.Entry<Long, ObjectMeta> e : positions.entrySet()) {
            long p = e.getKey();
            boolean removable =
                    p <= oldFloor.walFloor() || (p <= minReplayAfter && p < highest && old(e.getValue(), cutoff));
            if (!removable) {
                break;
            }
            walRemoved.add(e.getValue());
            walFloor = Math.max(walFloor, p);
        }

        List<ObjectMeta> versionsRemoved =
                List.copyOf(versions.headMap(manifestFloor).values());

        Map<String, List<ObjectMeta>> foldersRemoved = new TreeMap<>();
        for (Map.Entry<String, List<ObjectMeta>> e : folders.entrySet()) {
            String name = e.getKey();
            if (!referenced.contains(name)
                    && generations.get(name) < minGeneration
                    && generations.get(name) <= consumed.emittedThrough()
                    && e.getValue().stream().allMatch(m -> old(m, cutoff))) {
                foldersRemoved.put(name, e.getValue());
            }
        }

        GcFloor raised = oldFloor.manifestFloor() < manifestFloor || oldFloor.walFloor() < walFloor
                ? new GcFloor(manifestFloor, walFloor, retention, now).raisedTo(oldFloor)
                : null;
        return new ShardGcPlan(
                shard, manifests, latest, seenFloor, raised, versionsRemoved, walRemoved, foldersRemoved);
    }

    /** Last modified before {@code cutoff}: old enough for the retention to let it go. */
    static boolean old(ObjectMeta meta, Instant cutoff) {
        return meta.lastModified().isBefore(cutoff);
    }
}
