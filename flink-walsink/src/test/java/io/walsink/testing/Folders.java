package io.walsink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** File-tree helpers for tests that look at a local table's folders or hand a copy to lance-core. */
public final class Folders {
    private Folders() {}

    /** Copies the tree under {@code from} to {@code to} (created as needed). */
    public static void copyTree(Path from, Path to) {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SSTable folders ({@code {random8}_gen_{g}}) under a local table's shard folders, written or being written. */
    public static long ssTableFolders(Path table) {
        Path shards = table.resolve("_mem_wal");
        if (!Files.isDirectory(shards)) {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(shards, 2)) {
            return paths.filter(Files::isDirectory)
                    .filter(p -> p.getFileName().toString().matches("[0-9a-z]+_gen_\\d+"))
                    .count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
