package io.walsink.read.scan;

import io.walsink.annotation.Internal;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.CompactedSsTables;
import io.walsink.read.snapshot.MergedRows;
import io.walsink.read.snapshot.PinnedBase;
import io.walsink.read.snapshot.PinnedShard;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.ShardReader;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableColumns;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.Fragment;

/**
 * Opens streamed reads of parts of a pinned {@link TableSnapshot} ({@link SnapshotRows}): what a
 * scan split reads, with memory bounded by one base batch and the unmerged part, where {@link
 * SnapshotReader} materializes the whole table.
 */
@Internal
public final class SnapshotScan {
    /** Rows per base batch unless told otherwise: a few MB for tables of some dozen columns. */
    public static final long DEFAULT_BATCH_SIZE = 4096;

    private final TableLocation location;
    private final String tableUri;
    private final ObjectStore store;
    private final WalSchemaProfile profile;
    private final BufferAllocator allocator;
    private final long batchSize;

    /**
     * @param location the table: its store (manifests and WAL entries), base table and SSTables
     * @param allocator holds the batch being read and the WAL entries of the unmerged part
     * @param batchSize rows per base batch
     */
    public SnapshotScan(TableLocation location, WalSchemaProfile profile, BufferAllocator allocator, long batchSize) {
        this.location = Objects.requireNonNull(location, "location");
        this.tableUri = location.uri();
        this.store = location.store();
        this.profile = Objects.requireNonNull(profile, "profile");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be positive, was " + batchSize);
        }
        this.batchSize = batchSize;
    }

    /**
     * Reads {@code part} of {@code snapshot} from {@code from}; the result holds the base table
     * open until closed.
     *
     * @param columns the columns {@code extractor} reads
     * @param baseFilter a Lance predicate for the base rows (null for all): base rows it drops are
     *     not emitted, the unmerged rows are not filtered, and the keys they hold still leave out
     *     base rows the filter keeps (a newer row failing the filter hides the older one)
     * @throws io.walsink.format.manifest.GarbageCollectedException if an object the snapshot names is gone
     */
    public <R> SnapshotRows<R> open(
            TableSnapshot snapshot,
            SnapshotPart part,
            List<String> columns,
            RowExtractor<R> extractor,
            String baseFilter,
            ScanPosition from) {
        Dataset base = PinnedBase.open(allocator, location, snapshot);
        try {
            TableColumns layout = TableColumns.of(base);
            List<Integer> fragments = part.baseFragments() != null ? part.baseFragments() : fragmentIds(base);
            boolean scanBase = from.fragment() < fragments.size();
            MergedRows<?> overlay = null;
            List<R> unmerged = null;
            if (part.unmerged()) {
                MergedRows<R> rows = new MergedRows<>(layout, extractor);
                applyShards(rows, base, layout, snapshot, part.bucket());
                overlay = rows;
                unmerged = rows.live();
            } else if (scanBase && !layout.primaryKey().isEmpty()) {
                MergedRows<Boolean> keys = new MergedRows<>(layout, (batch, row) -> Boolean.TRUE);
                applyShards(keys, base, layout, snapshot, part.bucket());
                overlay = keys;
            }
            if (overlay != null && (!overlay.keyed() || !overlay.holdsAnyKey())) {
                overlay = null; // nothing to leave out of the base
            }
            BaseFragments baseRows = scanBase
                    ? new BaseFragments(
                            base,
                            tableUri,
                            location,
                            fragments,
                            scanColumns(layout, columns, part.bucket()),
                            batchSize,
                            baseFilter,
                            from.fragment(),
                            from.row())
                    : null;
            return new SnapshotRows<>(
                    base, tableUri, baseRows, part.bucket(), overlay, extractor, unmerged, fragments.size(), from);
        } catch (RuntimeException e) {
            base.close();
            throw e;
        }
    }

    /** The fragment ids of the pinned base version, in the version's order. */
    public List<Integer> fragments(TableSnapshot snapshot) {
        try (Dataset base = PinnedBase.open(allocator, location, snapshot)) {
            return fragmentIds(base);
        }
    }

    /**
     * The fragments of the pinned base version in consecutive groups of at most {@code rows}
     * rows (after deletions; a larger fragment is a group of its own), in the version's order:
     * the base parts of a scan whose parallelism the bucket count does not cap.
     */
    public List<List<Integer>> fragmentGroups(TableSnapshot snapshot, long rows) {
        List<List<Integer>> groups = new ArrayList<>();
        try (Dataset base = PinnedBase.open(allocator, location, snapshot)) {
            List<Integer> group = new ArrayList<>();
            long inGroup = 0;
            for (Fragment fragment : base.getFragments()) {
                long count = fragment.metadata().getNumRows();
                if (!group.isEmpty() && inGroup + count > rows) {
                    groups.add(List.copyOf(group));
                    group.clear();
                    inGroup = 0;
                }
                group.add(fragment.getId());
                inGroup += count;
            }
            if (!group.isEmpty()) {
                groups.add(List.copyOf(group));
            }
        }
        return groups;
    }

    private static List<Integer> fragmentIds(Dataset base) {
        return base.getFragments().stream().map(Fragment::getId).toList();
    }

    /**
     * The unmerged part, oldest first as {@link SnapshotReader} applies it: per shard (in the
     * snapshot's order) SSTables above the base's merge progress by generation, then its WAL tail.
     */
    private void applyShards(
            MergedRows<?> rows, Dataset base, TableColumns layout, TableSnapshot snapshot, BucketSelection bucket) {
        WalStorageSchema storage = layout.storage(profile);
        Map<UUID, Long> compacted = CompactedSsTables.of(base, tableUri);
        for (PinnedShard shard : snapshot.shards()) {
            if (bucket == null || shard.bucket() == bucket.bucket()) {
                new ShardReader(location, shard.shardId(), profile, allocator)
                        .applyTo(rows, storage, snapshot, shard, compacted.getOrDefault(shard.shardId(), 0L));
            }
        }
    }

    /** The columns a base scan needs, in table order: those emitted, the key and the sharding column. */
    private static List<String> scanColumns(TableColumns layout, List<String> columns, BucketSelection bucket) {
        Set<String> needed = new HashSet<>(columns);
        needed.addAll(layout.primaryKey());
        if (bucket != null) {
            needed.add(bucket.column());
        }
        return layout.columns().stream().filter(needed::contains).toList();
    }
}
