package io.walsink.storage;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The objects of a {@link LocalObjectStore} under a key prefix, read while writers work next to
 * the reader.
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
    private final List<ObjectMeta> found = new ArrayList<>();

    private LocalListing(Path root, String prefix, String after) {
        this.root = root;
        this.prefix = prefix;
        this.after = after;
    }

    /**
     * Objects whose keys start with {@code prefix} and sort after {@code after} (null: all), by key.
     *
     * @param start the deepest folder the prefix names completely
     */
    static List<ObjectMeta> under(Path root, Path start, String prefix, String after) throws IOException {
        LocalListing listing = new LocalListing(root, prefix, after);
        Files.walkFileTree(start, listing.new Visitor(start));
        listing.found.sort(Comparator.comparing(ObjectMeta::key));
        return listing.found;
    }

    private String keyOf(Path file) {
        return root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
    }

    /** Whether a folder can hold a key of this listing; each page re-walks, so this saves most of it. */
    private boolean mayHoldKeys(String folderKey) {
        if (!folderKey.startsWith(prefix) && !prefix.startsWith(folderKey)) {
            return false;
        }
        // Keys under the folder all sort before `after` iff the folder does and `after` is not inside it.
        return after == null || folderKey.compareTo(after) > 0 || after.startsWith(folderKey);
    }

    private final class Visitor extends SimpleFileVisitor<Path> {
        private final Path start;

        Visitor(Path start) {
            this.start = start;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return dir.equals(start) || mayHoldKeys(keyOf(dir) + "/")
                    ? FileVisitResult.CONTINUE
                    : FileVisitResult.SKIP_SUBTREE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
            if (TemporaryFileNames.isTemporary(file.getFileName().toString())) {
                return FileVisitResult.CONTINUE;
            }
            String key = keyOf(file);
            if (!key.startsWith(prefix) || (after != null && key.compareTo(after) <= 0)) {
                return FileVisitResult.CONTINUE;
            }
            BasicFileAttributes target = attrs;
            if (attrs.isSymbolicLink()) {
                // get and head follow links, so a linked file is an object too
                try {
                    target = Files.readAttributes(file, BasicFileAttributes.class);
                } catch (NoSuchFileException dangling) {
                    return FileVisitResult.CONTINUE;
                }
            }
            if (target.isRegularFile()) {
                found.add(new ObjectMeta(
                        key, target.size(), target.lastModifiedTime().toInstant()));
            }
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // vanished after its name was read: not an object
            }
            throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
            }
            return FileVisitResult.CONTINUE;
        }
    }
}
