package io.walsink.format.wal;

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
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Minimal local-directory store so interop tests can put WAL entries where lance-core reads them.
 * Test-only stand-in for the storage layer's file-system store (to be replaced at merge).
 */
final class DirectoryObjectStore implements ObjectStore {
    private final Path root;

    DirectoryObjectStore(Path root) {
        this.root = root;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        Path target = root.resolve(key);
        try {
            Files.createDirectories(target.getParent());
            Path tmp = target.resolveSibling(".tmp-" + UUID.randomUUID());
            Files.write(tmp, data);
            try {
                Files.createLink(target, tmp);
            } finally {
                Files.delete(tmp);
            }
        } catch (FileAlreadyExistsException e) {
            throw new ObjectAlreadyExistsException(describe() + key);
        } catch (IOException e) {
            throw new StorageException(describe() + key, e.toString(), false, e);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        try {
            Files.createDirectories(root.resolve(key).getParent());
            Files.write(root.resolve(key), data);
        } catch (IOException e) {
            throw new StorageException(describe() + key, e.toString(), false, e);
        }
    }

    @Override
    public byte[] get(String key) {
        try {
            return Files.readAllBytes(root.resolve(key));
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(describe() + key);
        } catch (IOException e) {
            throw new StorageException(describe() + key, e.toString(), false, e);
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
        Path path = root.resolve(key);
        try {
            return Files.isRegularFile(path) ? Optional.of(new ObjectMeta(key, Files.size(path))) : Optional.empty();
        } catch (IOException e) {
            throw new StorageException(describe() + key, e.toString(), false, e);
        }
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        try (Stream<Path> files = Files.walk(root)) {
            List<ObjectMeta> all = files.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(k -> k.startsWith(prefix))
                    .sorted()
                    .map(k -> new ObjectMeta(k, root.resolve(k).toFile().length()))
                    .toList();
            return new ListPage(all, null);
        } catch (IOException e) {
            throw new StorageException(describe() + prefix, e.toString(), false, e);
        }
    }

    @Override
    public void delete(String key) {
        try {
            Files.deleteIfExists(root.resolve(key));
        } catch (IOException e) {
            throw new StorageException(describe() + key, e.toString(), false, e);
        }
    }

    @Override
    public String describe() {
        return root + "/";
    }
}
