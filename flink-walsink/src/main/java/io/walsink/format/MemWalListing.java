package io.walsink.format;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * One listing of {@code _mem_wal/}, every object classified ({@link TableLayout#classify}) and
 * grouped by shard folder. {@link #shards} applies the table's one shard rule (see {@link
 * TableLayout}); {@link #folders} and {@link #outsideShardFolders} are for checks that must see
 * every object.
 */
@Internal
public final class MemWalListing {
    private final SortedMap<UUID, List<Listed>> byFolder = new TreeMap<>();
    private final SortedSet<UUID> shards = new TreeSet<>();
    private final List<Listed> outside = new ArrayList<>();

    /** An object as listed, with what it is. */
    public record Listed(ObjectMeta meta, MemWalObject object) {}

    private MemWalListing(List<ObjectMeta> objects) {
        for (ObjectMeta meta : objects) {
            MemWalObject object = TableLayout.classify(meta.key());
            Listed listed = new Listed(meta, object);
            if (object.shard().isEmpty()) {
                outside.add(listed);
                continue;
            }
            UUID folder = object.shard().get();
            byFolder.computeIfAbsent(folder, f -> new ArrayList<>()).add(listed);
            if (object.kind() == MemWalObject.Kind.MANIFEST_VERSION) {
                shards.add(folder);
            }
        }
    }

    /** Lists {@code _mem_wal/} of the table in {@code store} (one LIST, following pages). */
    public static MemWalListing of(ObjectStore store) {
        return new MemWalListing(store.listAll(TableLayout.MEM_WAL));
    }

    /** The shards: canonical shard folders holding at least one manifest version, in id order. */
    public SortedSet<UUID> shards() {
        return Collections.unmodifiableSortedSet(shards);
    }

    /** Every canonical shard folder holding any object, shard or not, in id order. */
    public SortedSet<UUID> folders() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(byFolder.keySet()));
    }

    /** The objects of one shard folder, in listing (key) order; empty for a folder not listed. */
    public List<Listed> objects(UUID folder) {
        return Collections.unmodifiableList(byFolder.getOrDefault(folder, List.of()));
    }

    /** Objects under {@code _mem_wal/} that sit in no canonical shard folder. */
    public List<Listed> outsideShardFolders() {
        return Collections.unmodifiableList(outside);
    }
}
