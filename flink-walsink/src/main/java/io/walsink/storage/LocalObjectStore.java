package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Objects as files under a root directory, the embedded default for {@code file://} and plain
 * paths.
 *
 * <p>Put-if-absent writes and fsyncs a temporary file in the target directory, then hard-links it
 * to the final name: {@code link(2)} fails if the name exists, so exactly one of several racing
 * writers wins and a reader never sees a partial object. ({@code Files.move} with
 * {@code ATOMIC_MOVE} would silently replace an existing file.) Temporary files are named by
 * {@link TemporaryFileNames} and never listed; those of writers killed mid-put are removed by
 * {@link #removeLeftovers} once older than the leftover age.
 */
@Internal
public final class LocalObjectStore implements ObjectStore {
    /** The most bytes one write call hands the JDK (see {@link #writeTemporary}). */
    static final int WRITE_SLICE_BYTES = 1 << 20;

    /** Idle stages of streamed puts kept between puts: a writer's I/O threads put at once. */
    static final int KEPT_STAGES = 4;

    /**
     * Age after which a temporary file counts as abandoned. A put holds its file for
     * milliseconds; an hour leaves room for stalled processes and clock skew on shared disks.
     */
    public static final Duration DEFAULT_LEFTOVER_AGE = Duration.ofHours(1);

    private final Path root;
    private final String description;
    private final Duration leftoverAge;
    private final Clock clock;
    private final StagePool stages;

    public LocalObjectStore(Path root) {
        this(root, DEFAULT_LEFTOVER_AGE);
    }

    /** @param leftoverAge temporary files last modified longer ago are removed by {@link #removeLeftovers} */
    public LocalObjectStore(Path root, Duration leftoverAge) {
        this(root, leftoverAge, Clock.systemUTC());
    }

    LocalObjectStore(Path root, Duration leftoverAge, Clock clock) {
        this(root, leftoverAge, clock, new StagePool(WRITE_SLICE_BYTES, KEPT_STAGES));
    }

    LocalObjectStore(Path root, Duration leftoverAge, Clock clock, StagePool stages) {
        if (leftoverAge.isNegative()) {
            throw new IllegalArgumentException("leftover age must not be negative, got " + leftoverAge);
        }
        this.root = root.toAbsolutePath().normalize();
        String uri = this.root.toUri().toString();
        this.description = uri.endsWith("/") ? uri : uri + "/";
        this.leftoverAge = leftoverAge;
        this.clock = clock;
        this.stages = stages;
    }

    public Path root() {
        return root;
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        putIfAbsent(key, target -> writeTemporary(target, data));
    }

    /** The content's bytes go to the file as they come, through {@link StagedFileWrites}, with no array of them all. */
    @Override
    public void putIfAbsent(String key, ObjectContent content) {
        putIfAbsent(key, target -> writeTemporary(target, content));
    }

    /** Writes a new temporary file beside {@code target}, forced to disk, and returns its path. */
    private interface TemporaryWriter {
        Path write(Path target) throws IOException;
    }

    private void putIfAbsent(String key, TemporaryWriter writer) {
        Path target = resolve(key);
        Path temporary = null;
        try {
            createParents(key, target);
            if (Files.exists(target)) {
                throw new ObjectAlreadyExistsException(location(key));
            }
            temporary = writer.write(target);
            Files.createLink(target, temporary);
            syncDirectory(target.getParent());
        } catch (FileAlreadyExistsException e) {
            throw new ObjectAlreadyExistsException(location(key));
        } catch (UnsupportedOperationException e) {
            throw new StorageException(
                    location(key),
                    "the file system does not support hard links, which" + " atomic put-if-absent needs",
                    false,
                    e);
        } catch (IOException e) {
            throw failure(key, "put-if-absent", e);
        } finally {
            deleteQuietly(temporary);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        Path target = resolve(key);
        Path temporary = null;
        try {
            createParents(key, target);
            temporary = writeTemporary(target, data);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temporary = null;
            syncDirectory(target.getParent());
        } catch (IOException e) {
            throw failure(key, "put", e);
        } finally {
            deleteQuietly(temporary);
        }
    }

    @Override
    public byte[] get(String key) {
        Path file = resolve(key);
        try {
            if (Files.isDirectory(file)) {
                throw new ObjectNotFoundException(location(key));
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(location(key));
        } catch (IOException e) {
            throw failure(key, "get", e);
        }
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("range must not be negative: offset " + offset + ", length " + length);
        }
        Path file = resolve(key);
        if (Files.isDirectory(file)) {
            throw new ObjectNotFoundException(location(key));
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long available = Math.max(0, channel.size() - offset);
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, available));
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, offset + buffer.position()) < 0) {
                    break;
                }
            }
            return buffer.position() == buffer.capacity()
                    ? buffer.array()
                    : Arrays.copyOf(buffer.array(), buffer.position());
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(location(key));
        } catch (IOException e) {
            throw failure(key, "get range", e);
        }
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(resolve(key), BasicFileAttributes.class);
            return attributes.isRegularFile()
                    ? Optional.of(new ObjectMeta(
                            key,
                            attributes.size(),
                            attributes.lastModifiedTime().toInstant()))
                    : Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw failure(key, "head", e);
        }
    }

    /**
     * Sorted by key; the continuation token is the last key of the page. Each page reads the
     * folders from the continuation on, in key order, until it is full; every object that exists
     * throughout the call is on it (see {@link LocalListing}).
     */
    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be positive, got " + maxKeys);
        }
        List<ObjectMeta> objects = objectsUnder(prefix, continuation, (int) Math.min(Integer.MAX_VALUE, maxKeys + 1L));
        if (objects.size() > maxKeys) {
            List<ObjectMeta> page = objects.subList(0, maxKeys);
            return new ListPage(page, page.get(maxKeys - 1).key());
        }
        return new ListPage(objects, null);
    }

    /** One directory read; temporary and hidden entries are left out. */
    @Override
    public SortedSet<String> listFolders(String prefix) {
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            throw new IllegalArgumentException("a folder prefix ends with '/': '" + prefix + "'");
        }
        Path dir = prefix.isEmpty() ? root : resolveDirectory(prefix.substring(0, prefix.length() - 1));
        SortedSet<String> folders = new TreeSet<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.filter(Files::isDirectory)
                    .map(d -> d.getFileName().toString())
                    .filter(name -> !TemporaryFileNames.isTemporary(name))
                    .forEach(name -> folders.add(prefix + name + "/"));
        } catch (NoSuchFileException absent) {
            return folders;
        } catch (IOException e) {
            throw failure(prefix, "list", e);
        }
        return folders;
    }

    @Override
    public void delete(String key) {
        try {
            Files.deleteIfExists(resolve(key));
        } catch (IOException e) {
            throw failure(key, "delete", e);
        }
    }

    /**
     * Temporary files under the folder {@code prefix} names completely, whatever their age, with
     * their keys (for {@link #delete}), sizes and modification times.
     */
    @Override
    public List<ObjectMeta> listLeftovers(String prefix) {
        int slash = prefix.lastIndexOf('/');
        Path folder = slash < 0 ? root : resolveDirectory(prefix.substring(0, slash));
        try {
            return LeftoverTemporaryFiles.list(root, folder);
        } catch (IOException e) {
            throw failure(prefix, "list leftovers", e);
        }
    }

    /**
     * Empty directories under the folder {@code prefix} names, deepest first; a directory that is
     * not empty (a writer put something meanwhile) is left.
     */
    @Override
    public void removeEmptyFolders(String prefix) {
        if (!prefix.endsWith("/")) {
            throw new IllegalArgumentException("a folder key ends with '/': '" + prefix + "'");
        }
        Path folder = resolveDirectory(prefix.substring(0, prefix.length() - 1));
        if (!Files.isDirectory(folder)) {
            return;
        }
        try (var paths = Files.walk(folder)) {
            for (Path dir : paths.filter(Files::isDirectory)
                    .sorted(Comparator.reverseOrder())
                    .toList()) {
                try {
                    Files.deleteIfExists(dir);
                } catch (DirectoryNotEmptyException inUse) {
                    // holds files: kept
                } catch (IOException e) {
                    // best effort, like removeLeftovers
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // best effort: a folder left behind holds no object
        }
    }

    /** Temporary files under the folder {@code prefix} names completely, older than the leftover age. */
    @Override
    public int removeLeftovers(String prefix) {
        int slash = prefix.lastIndexOf('/');
        Path folder = slash < 0 ? root : resolveDirectory(prefix.substring(0, slash));
        return LeftoverTemporaryFiles.remove(folder, clock.instant().minus(leftoverAge));
    }

    @Override
    public String describe() {
        return description;
    }

    private List<ObjectMeta> objectsUnder(String prefix, String after, int limit) {
        // Walk only the deepest directory the prefix names completely.
        int slash = prefix.lastIndexOf('/');
        Path start = slash < 0 ? root : resolveDirectory(prefix.substring(0, slash));
        try {
            return LocalListing.under(root, start, prefix, after, limit);
        } catch (IOException e) {
            throw failure(prefix, "list", e);
        }
    }

    private Path resolve(String key) {
        checkKey(key);
        return root.resolve(key);
    }

    private Path resolveDirectory(String relative) {
        checkKey(relative);
        return root.resolve(relative);
    }

    private static void checkKey(String key) {
        if (key.isEmpty() || key.startsWith("/") || key.endsWith("/")) {
            throw new IllegalArgumentException(
                    "object key must be relative, non-empty and not end with '/': '" + key + "'");
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.contains("\\")) {
                throw new IllegalArgumentException("object key has an empty, '.', '..' or '\\' segment: '" + key + "'");
            }
        }
    }

    private void createParents(String key, Path target) throws IOException {
        try {
            Files.createDirectories(target.getParent());
        } catch (FileAlreadyExistsException e) {
            throw new StorageException(location(key), "a parent of the key is an object, not a directory", false, e);
        }
    }

    private static Path writeTemporary(Path target, byte[] data) throws IOException {
        Path temporary = target.resolveSibling(TemporaryFileNames.next());
        try (FileChannel channel =
                FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            // The JDK copies a heap buffer through a direct one it keeps per thread, replaced by a
            // fresh one (zeroed, page-faulted) whenever a write is larger: slices keep it one size.
            for (int offset = 0; offset < data.length; offset += WRITE_SLICE_BYTES) {
                ByteBuffer slice = ByteBuffer.wrap(data, offset, Math.min(WRITE_SLICE_BYTES, data.length - offset));
                while (slice.hasRemaining()) {
                    channel.write(slice);
                }
            }
            channel.force(true);
        }
        return temporary;
    }

    private Path writeTemporary(Path target, ObjectContent content) throws IOException {
        Path temporary = target.resolveSibling(TemporaryFileNames.next());
        try (FileChannel channel =
                        FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                StagedFileWrites out = new StagedFileWrites(channel, stages)) {
            content.writeTo(out);
            out.flush();
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temporary); // the caller learns no path to delete
            throw e;
        }
        return temporary;
    }

    /** Frees the stages kept for streamed puts; the store still works after it, keeping none. */
    @Override
    public void close() {
        stages.close();
    }

    /** Makes the new directory entry durable; not every platform can open a directory. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException ignored) {
            // best effort: the data itself was already forced
        }
    }

    private static void deleteQuietly(Path temporary) {
        if (temporary != null) {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException ignored) {
                // a leftover temporary is harmless: its name never matches an object and listings skip it
            }
        }
    }

    private StorageException failure(String key, String operation, IOException e) {
        // Permission problems do not heal by retrying; other I/O errors (a full disk, a network file
        // system hiccup) might.
        boolean permanent = e instanceof AccessDeniedException;
        return new StorageException(location(key), operation + " failed: " + e, !permanent, e);
    }

    private String location(String key) {
        return describe() + key;
    }
}
