package io.walsink.format.manifest;

import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectAlreadyExistsException;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.StorageException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * TEST-ONLY minimal file-system store so the lance-core interop tests can share a directory with
 * lance-core. To be replaced by the storage layer's LocalObjectStore at merge.
 */
final class TestDirectoryStore implements ObjectStore {
    private final Path root;

    TestDirectoryStore(Path root) {
        this.root = root;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        Path target = resolve(key);
        Path tmp = writeTemporary(target, data);
        try {
            // A hard link fails if the target exists, atomically; a rename would replace it.
            Files.createLink(target, tmp);
        } catch (FileAlreadyExistsException e) {
            throw new ObjectAlreadyExistsException(location(key));
        } catch (IOException e) {
            throw new StorageException(location(key), e.toString(), false, e);
        } finally {
            deleteQuietly(tmp);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        Path target = resolve(key);
        Path tmp = writeTemporary(target, data);
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw new StorageException(location(key), e.toString(), false, e);
        }
    }

    @Override
    public byte[] get(String key) {
        try {
            return Files.readAllBytes(resolve(key));
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(location(key));
        } catch (IOException e) {
            throw new StorageException(location(key), e.toString(), false, e);
        }
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        byte[] all = get(key);
        int from = (int) Math.min(offset, all.length);
        return Arrays.copyOfRange(all, from, (int) Math.min((long) from + length, all.length));
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        Path p = resolve(key);
        try {
            return Files.isRegularFile(p) ? Optional.of(new ObjectMeta(key, Files.size(p))) : Optional.empty();
        } catch (IOException e) {
            throw new StorageException(location(key), e.toString(), false, e);
        }
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        List<String> keys = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile)
                        .map(p -> root.relativize(p).toString().replace('\\', '/'))
                        .filter(k -> k.startsWith(prefix))
                        .filter(k -> continuation == null || k.compareTo(continuation) > 0)
                        .sorted()
                        .forEach(keys::add);
            } catch (IOException e) {
                throw new StorageException(location(prefix), e.toString(), false, e);
            }
        }
        List<ObjectMeta> page = new ArrayList<>();
        for (String k : keys.subList(0, Math.min(maxKeys, keys.size()))) {
            page.add(new ObjectMeta(k, resolve(k).toFile().length()));
        }
        String next = keys.size() > maxKeys ? page.get(page.size() - 1).key() : null;
        return new ListPage(page, next);
    }

    @Override
    public void delete(String key) {
        deleteQuietly(resolve(key));
    }

    @Override
    public String describe() {
        return root.toUri().toString();
    }

    private Path resolve(String key) {
        if (key.isEmpty() || key.startsWith("/")) {
            throw new IllegalArgumentException("object key must be relative and non-empty: '" + key + "'");
        }
        return root.resolve(key);
    }

    private Path writeTemporary(Path target, byte[] data) {
        try {
            Files.createDirectories(target.getParent());
            // Dot-prefixed and random: never matches a manifest or WAL name.
            Path tmp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
            Files.write(tmp, data);
            return tmp;
        } catch (IOException e) {
            throw new StorageException(target.toString(), e.toString(), false, e);
        }
    }

    private String location(String key) {
        return describe() + key;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort cleanup of a temporary file
        }
    }
}
