package io.walsink.cli;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.MemWalListing;
import io.walsink.format.MemWalObject;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GcFloor;
import io.walsink.format.manifest.ManifestInvariants;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.manifest.SsTablePaths;
import io.walsink.format.manifest.TableShards;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.wal.AnyProfileDecoder;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The format checks of {@code walsink verify}: what must hold for a MemWAL table written by this
 * library, checked on the objects in storage. Each problem is one line naming the object at fault.
 *
 * <ul>
 *   <li>the base table opens with a primary key and a MemWAL index;
 *   <li>every object under {@code _mem_wal/} sits in a canonical shard folder, in {@code manifest/},
 *       {@code wal/} or an SSTable folder, with a manifest or WAL entry name ({@link
 *       io.walsink.format.TableLayout#classify}), and every folder holding objects has a manifest
 *       version (else it is no shard, and nothing in it is read);
 *   <li>manifest versions are contiguous from the shard's garbage-collection floor ({@link GcFloor})
 *       to the latest, each decodes, names its shard, and its SSTable paths stay in the shard folder;
 *       across versions writer epochs, generations and the replay cursor never go back
 *       ({@link ManifestInvariants});
 *   <li>WAL positions are contiguous above the garbage-collection floor; every WAL entry decodes
 *       in a supported schema profile, and writer epochs never decrease along the WAL
 *       ({@link WalEntryCheck});
 *   <li>every SSTable the latest manifest lists is present;
 *   <li>no two shards claim one bucket (by their field entries, or by carrying Lance's id for it:
 *       {@link TableShards}), and no shard carries the id earlier releases derived;
 *   <li>no temporary file of an interrupted write is left in the table (local tables).
 * </ul>
 */
@Internal
final class TableVerifier {
    private final TableLocation location;
    private final ObjectStore store;
    private final String tableUri;
    private final List<String> problems = new ArrayList<>();
    private WalEntryCheck walEntries;
    private MemWalListing listing;

    TableVerifier(TableLocation location) {
        this.location = location;
        this.store = location.store();
        this.tableUri = location.uri();
    }

    /** Every problem found, one line each; empty for a healthy table. */
    List<String> verify() {
        TableInfo table;
        try {
            table = location.describe(true);
        } catch (TableNotFoundException e) {
            throw e; // no table to check: a wrong path, exit 2 as for the other commands
        } catch (RuntimeException e) {
            problems.add(tableUri + ": the base table does not open as a MemWAL table: " + e.getMessage());
            return problems;
        }
        try (BufferAllocator allocator = new RootAllocator()) {
            walEntries = new WalEntryCheck(store, new AnyProfileDecoder(table, allocator), this::location);
            verifyShards();
        }
        verifyOwnership(table);
        return problems;
    }

    private void verifyShards() {
        for (ObjectMeta leftover : store.listLeftovers("")) {
            problems.add(location(leftover.key()) + ": " + MemWalObject.TEMPORARY_PROBLEM);
        }
        listing = MemWalListing.of(store);
        for (MemWalListing.Listed stray : listing.outsideShardFolders()) {
            problems.add(location(stray.meta().key()) + ": "
                    + stray.object().problem().orElseThrow());
        }
        // Every folder, shard or not: objects nobody reads are exactly what a check must name.
        for (UUID folder : listing.folders()) {
            verifyShard(folder, listing.objects(folder));
        }
    }

    /**
     * Each bucket in one shard: shards claiming one bucket (by field entries or by Lance's id for
     * it) are named, and so are shards under the ids of earlier releases, for which
     * Lance's writers would open second shards.
     */
    private void verifyOwnership(TableInfo table) {
        if (table.sharding().sharding().transform() == ShardTransform.IDENTITY) {
            return; // identity shards are named by value; walsink writes none
        }
        Map<UUID, Optional<ShardManifest>> latest = new TreeMap<>();
        // The shards the writer's placement sees (TableLayout's rule), so verify names the overlaps it refuses.
        for (UUID shard : listing.shards()) {
            try {
                latest.put(shard, new ManifestStore(store, shard).readLatest());
            } catch (RuntimeException e) { // reported by the manifest checks
                latest.put(shard, Optional.empty());
            }
        }
        OptionalInt buckets = table.sharding().sharding().transform() == ShardTransform.BUCKET
                ? table.sharding().sharding().numBuckets()
                : OptionalInt.empty();
        TableShards owners = TableShards.of(
                latest, table.sharding().specId(), buckets, !table.primaryKey().isEmpty());
        for (String overlap : owners.overlaps()) {
            problems.add(location(TableLayout.MEM_WAL) + ": shards overlap: " + overlap);
        }
        owners.legacy()
                .forEach((bucket, shard) -> problems.add(location(TableLayout.shardFolder(shard))
                        + ": " + (buckets.isPresent() ? "shard of bucket " + bucket : "the unsharded table's shard")
                        + " under the legacy id of earlier flink-walsink releases; Lance's writers use "
                        + owners.lanceId(bucket) + " and would open a second shard for its keys"
                        + " (stop the writers, then run `walsink migrate-shard-ids`)"));
    }

    private void verifyShard(UUID shard, List<MemWalListing.Listed> objects) {
        TreeSet<Long> versions = new TreeSet<>();
        TreeSet<Long> positions = new TreeSet<>();
        TreeSet<String> ssTableFolders = new TreeSet<>();
        for (MemWalListing.Listed listed : objects) {
            MemWalObject object = listed.object();
            switch (object.kind()) {
                case MANIFEST_VERSION -> versions.add(object.number());
                case WAL_ENTRY -> positions.add(object.number());
                case SSTABLE_FILE -> ssTableFolders.add(object.ssTableFolder().orElseThrow());
                case VERSION_HINT -> {}
                default -> problems.add(
                        location(object.key()) + ": " + object.problem().orElseThrow());
            }
        }
        GcFloor floor;
        try {
            floor = new ManifestStore(store, shard).readFloor();
        } catch (FormatException e) {
            problems.add(e.getMessage());
            floor = GcFloor.NONE;
        }
        List<ShardManifest> history = checkManifests(shard, versions, floor);
        checkWal(shard, positions, floor);
        problems.addAll(walEntries.check(shard, positions));
        if (!history.isEmpty()) {
            ShardManifest latest = history.get(history.size() - 1);
            for (SsTable t : latest.sstables()) {
                if (SsTablePaths.problem(t.generation(), t.path()).isEmpty() && !ssTableFolders.contains(t.path())) {
                    problems.add(location(TableLayout.ssTableFolder(shard, t.path())) + ": SSTable of generation "
                            + t.generation() + " listed by manifest version " + latest.version() + " is missing");
                }
            }
        } else if (versions.isEmpty() && !positions.isEmpty()) {
            problems.add(
                    location(TableLayout.manifestFolder(shard)) + ": shard has WAL entries but no manifest version");
        } else if (versions.isEmpty()
                && objects.stream().anyMatch(o -> o.object().belongs())) {
            problems.add(location(TableLayout.shardFolder(shard))
                    + ": holds objects but no manifest version, so it is no shard and nothing in it is read");
        }
    }

    private List<ShardManifest> checkManifests(UUID shard, TreeSet<Long> versions, GcFloor floor) {
        ManifestStore manifests = new ManifestStore(store, shard);
        List<ShardManifest> history = new ArrayList<>();
        if (versions.isEmpty()) {
            return history;
        }
        long first = floor.manifestFloor();
        long last = versions.last();
        for (long v = first; v <= last; v++) {
            if (!versions.contains(v)) {
                problems.add(location(manifests.versionKey(v)) + ": manifest gap: version " + v + " is missing"
                        + " (versions present: " + ranges(versions)
                        + (first > 1 ? ", garbage collection keeps every " + "version from " + first + " on" : "")
                        + ")");
            }
        }
        for (long v : versions.tailSet(first, true)) {
            try {
                history.add(manifests.read(v));
            } catch (FormatException e) {
                problems.add(e.getMessage());
            } catch (RuntimeException e) {
                problems.add(location(manifests.versionKey(v)) + ": cannot be read: " + e.getMessage());
            }
        }
        String where = location(TableLayout.manifestFolder(shard));
        for (String p : ManifestInvariants.contentViolations(history)) {
            problems.add(where + ": " + p);
        }
        return history;
    }

    private void checkWal(UUID shard, TreeSet<Long> positions, GcFloor floor) {
        if (positions.isEmpty()) {
            return;
        }
        long last = positions.last();
        long missingFrom = -1;
        for (long p = floor.walFloor() + 1; p <= last + 1; p++) {
            boolean missing = p <= last && !positions.contains(p);
            if (missing && missingFrom < 0) {
                missingFrom = p;
            } else if (!missing && missingFrom >= 0) {
                problems.add(location(TableLayout.walEntryKey(shard, missingFrom)) + ": WAL gap: "
                        + (p - 1 == missingFrom
                                ? "position " + missingFrom
                                : "positions " + missingFrom + "-" + (p - 1))
                        + " missing below position " + p
                        + (floor.walFloor() > 0 ? " (garbage collection removed up to " + floor.walFloor() + ")" : ""));
                missingFrom = -1;
            }
        }
    }

    private String location(String key) {
        String root = store.describe();
        return root.endsWith("/") ? root + key : root + "/" + key;
    }

    private static String ranges(TreeSet<Long> values) {
        StringBuilder out = new StringBuilder();
        Long start = null;
        Long prev = null;
        for (long v : values) {
            if (prev != null && v == prev + 1) {
                prev = v;
                continue;
            }
            if (start != null) {
                out.append(out.length() > 0 ? "," : "").append(start.equals(prev) ? start : start + "-" + prev);
            }
            start = v;
            prev = v;
        }
        if (start != null) {
            out.append(out.length() > 0 ? "," : "").append(start.equals(prev) ? start : start + "-" + prev);
        }
        return out.toString();
    }
}
