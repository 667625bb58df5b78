package io.walsink.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The objects of a {@link LocalObjectStore} under a key prefix, one page at a time, read while
 * writers work next to the reader.
 *
 * <p>Folders are read in key order (each folder's entries sorted as their keys sort, a folder's
 * name with the separator after it), so a page stops once it has its objects: a listing of n
 * objects in pages of p reads about n entries, not n² / p as a walk of everything after the
 * continuation would. Folders that hold only keys before the continuation are not read.
 *
 * <p>A name returned by a directory read may be gone by the time it is looked at: a temporary
 * file was linked into place and removed, lance-core renamed a staging file, a folder was
 * removed. Such an entry is skipped, not a reason to stop: objects are never removed or moved by
 * a writer, so every object that exists for the whole walk is listed. Any other I/O error fails
 * the listing (the caller retries it) rather than letting it come back short.
 */
final class LocalListing {
    private final Path root;
    private final String prefix;
    private final String after;
    private final int limit;
    private final List<ObjectMeta> found = new ArrayList<>();

    private LocalListing(Path root, String prefix, String after, int limit) {
        this.root = root;
        this.prefix = prefix;
        this.after = after;
        this.limit = limit;
    }

    /**
     * The first {@code limit} objects (by key) whose keys start with {@code prefix} and sort after
     * {@code after} (null: from the first).
     *
     * @param start the deepest folder the prefix names completely
     */
    static List<ObjectMeta> under(Path root, Path start, String prefix, String after, int limit) throws IOException {
        LocalListing listing = new LocalListing(root, prefix, after, limit);
        String startKey = root.equals(start) ? "" : keyOf(root, start) + "/";
        listing.read(start, startKey);
        return listing.found;
    }

    /** An entry of a folder, with the key it sorts by. */
    private record Entry(Path path, String sortKey, BasicFileAttributes attrs) {}

    /** Reads {@code folder} (whose keys start with {@code folderKey}); false once the page is full. */
    private boolean read(Path folder, String folderKey) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (DirectoryStream<Path> names = Files.newDirectoryStream(folder)) {
            for (Path path : names) {
                String name = path.getFileName().toString();
                if (!mayHoldKeys(folderKey + name + "/")) {
                    continue; // neither it nor anything under it is on the page: no need to look at it
                }
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException gone) {
                    continue; // vanished after its name was read: not an object
                }
                entries.add(new Entry(path, attrs.isDirectory() ? name + "/" : name, attrs));
            }
        } catch (NoSuchFileException | NotDirectoryException gone) {
            return true; // removed, or replaced, since its parent was read
        }
        entries.sort(Comparator.comparing(Entry::sortKey));
        for (Entry e : entries) {
            String key = folderKey + e.sortKey();
            if (e.attrs().isDirectory()) {
                if (mayHoldKeys(key) && !read(e.path(), key)) {
                    return false;
                }
            } else if (!object(e, key)) {
                return false;
            }
        }
        return true;
    }

    /** Lists {@code e} if it is an object of the page; false once the page is full. */
    private boolean object(Entry e, String key) throws IOException {
        if (TemporaryFileNames.isTemporary(e.path().getFileName().toString())) {
            return true;
        }
        if (!key.startsWith(prefix) || (after != null && key.compareTo(after) <= 0)) {
            return true;
        }
        BasicFileAttributes target = e.attrs();
        if (target.isSymbolicLink()) {
            // get and head follow links, so a linked file is an object too
            try {
                target = Files.readAttributes(e.path(), BasicFileAttributes.class);
            } catch (NoSuchFileException dangling) {
                return true;
            }
        }
        if (target.isRegularFile()) {
            found.add(
                    new ObjectMeta(key, target.size(), target.lastModifiedTime().toInstant()));
        }
        return found.size() < limit;
    }

    private static String keyOf(Path root, Path file) {
        return root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
    }

    /** Whether a folder can hold a key of this listing. */
    private boolean mayHoldKeys(String folderKey) {
        if (!folderKey.startsWith(prefix) && !prefix.startsWith(folderKey)) {
            return false;
        }
        // Keys under the folder all sort before `after` iff the folder does and `after` is not inside it.
        return after == null || folderKey.compareTo(after) > 0 || after.startsWith(folderKey);
    }
}
