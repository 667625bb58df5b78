package io.walsink.storage;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the temporary files of {@link LocalObjectStore} puts that never finished (the writer
 * was killed between writing the file and linking it into place). They are never objects, but
 * nothing else would ever remove them.
 *
 * <p>Only files named by {@link TemporaryFileNames} and last modified before a cutoff are
 * removed. Removing a live put's file would not corrupt anything either: its link or rename then
 * fails as a transient error and the put is retried with a new file. Best effort: a failure is
 * logged, never thrown.
 */
final class LeftoverTemporaryFiles {
    private static final Logger LOG = LoggerFactory.getLogger(LeftoverTemporaryFiles.class);

    private LeftoverTemporaryFiles() {}

    /**
     * Every temporary file under {@code folder} (searched recursively), keyed relative to
     * {@code root} like the store's objects. A file gone meanwhile is skipped.
     */
    static List<ObjectMeta> list(Path root, Path folder) throws IOException {
        List<ObjectMeta> found = new ArrayList<>();
        if (!Files.isDirectory(folder)) {
            return found;
        }
        Files.walkFileTree(folder, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()
                        && TemporaryFileNames.isTemporary(file.getFileName().toString())) {
                    String key = root.relativize(file)
                            .toString()
                            .replace(file.getFileSystem().getSeparator(), "/");
                    found.add(new ObjectMeta(
                            key, attrs.size(), attrs.lastModifiedTime().toInstant()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        found.sort(Comparator.comparing(ObjectMeta::key));
        return found;
    }

    /** @return how many files were removed under {@code folder} (searched recursively) */
    static int remove(Path folder, Instant modifiedBefore) {
        int[] removed = {0};
        try {
            Files.walkFileTree(folder, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile()
                            && TemporaryFileNames.isTemporary(file.getFileName().toString())
                            && attrs.lastModifiedTime().toInstant().isBefore(modifiedBefore)) {
                        if (Files.deleteIfExists(file)) {
                            removed[0]++;
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // gone meanwhile: nothing to remove
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            LOG.warn("Could not remove leftover temporary files under {}: {}", folder.toUri(), e.toString());
        }
        if (removed[0] > 0) {
            LOG.info(
                    "Removed {} temporary files of interrupted writes under {} (last modified before {})",
                    removed[0],
                    folder.toUri(),
                    modifiedBefore);
        }
        return removed[0];
    }
}
