package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.table.LanceStorageOptions;
import io.walsink.format.table.LanceTables;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.Dataset;
import org.lance.Tag;

/**
 * Named base table versions (Lance tags), which LanceDB's {@code checkout(tag)} and walsink's
 * {@code 'scan.tag'} read and which the sink's cleanup keeps however old: what {@code walsink tag}
 * and the catalog's {@code sys.create_tag}, {@code sys.delete_tag} and {@code sys.list_tags} do.
 * Every change is checked first, so a refused one writes nothing.
 */
@PublicEvolving
public final class TableTags {
    private final String path;
    private final S3Options s3;

    private TableTags(String path, S3Options s3) {
        this.path = path;
        this.s3 = s3 == null ? S3Options.defaults() : s3;
    }

    /**
     * The tags of the table at {@code path} ({@code file:///...}, a plain path or {@code s3://bucket/prefix}).
     *
     * @param s3 used only for {@code s3://} paths; null for the defaults
     */
    public static TableTags of(String path, S3Options s3) {
        return new TableTags(path, s3);
    }

    /**
     * Names base table version {@code version}, or the latest when null; returns the version tagged.
     *
     * @throws IllegalArgumentException if the name is empty or taken, or the table holds no such
     *     version
     */
    public long create(String tag, Long version) {
        requireName(tag);
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = open(allocator)) {
            SortedMap<String, Long> tags = list(base);
            if (tags.containsKey(tag)) {
                throw new IllegalArgumentException("Table " + path + " has a tag '" + tag + "' already, on version "
                        + tags.get(tag) + ": delete it first to move it");
            }
            long tagged = version == null ? base.version() : version;
            List<Long> held =
                    base.listVersions().stream().map(v -> v.getId()).sorted().toList();
            if (!held.contains(tagged)) {
                throw new IllegalArgumentException("Table " + path + " has no base table version " + tagged
                        + " to tag (it holds " + held.size() + " versions, " + held.get(0) + " to "
                        + held.get(held.size() - 1) + ")");
            }
            base.tags().create(tag, tagged);
            return tagged;
        }
    }

    /**
     * Removes the tag; its version is then removed by the cleanup like any other. Returns the
     * version it named.
     *
     * @throws IllegalArgumentException if there is no such tag, naming the tags there are
     */
    public long delete(String tag) {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = open(allocator)) {
            SortedMap<String, Long> tags = list(base);
            if (!tags.containsKey(tag)) {
                throw new IllegalArgumentException("Table " + path + " has no tag '" + tag + "'; its tags: "
                        + (tags.isEmpty() ? "none" : tags.keySet()));
            }
            base.tags().delete(tag);
            return tags.get(tag);
        }
    }

    /** Each tag's version, by tag name. */
    public SortedMap<String, Long> list() {
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = open(allocator)) {
            return list(base);
        }
    }

    private static SortedMap<String, Long> list(Dataset base) {
        SortedMap<String, Long> tags = new TreeMap<>();
        for (Tag t : base.tags().list()) {
            tags.put(t.getName(), t.getVersion());
        }
        return tags;
    }

    private static void requireName(String tag) {
        if (tag == null || tag.isBlank()) {
            throw new IllegalArgumentException("A tag needs a name");
        }
    }

    private Dataset open(BufferAllocator allocator) {
        StorageLocation location = StorageLocation.parse(path);
        return LanceTables.openDataset(allocator, location.lanceUri(), LanceStorageOptions.of(location, s3));
    }
}
