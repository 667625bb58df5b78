package io.walsink.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The default file system with the race of a concurrent writer made deterministic. A test names
 * entries with {@link #whenListed}: right after a directory listing has returned such an entry's
 * name, and before the caller can look at it, the test's action runs on it (remove it, rename it
 * away) — what a writer renaming a temporary file or removing a folder does between readdir and
 * stat. {@link #whenOpened} runs an action on a directory just before its listing is opened
 * (the folder was seen, then removed). {@link #fired()} counts the actions that ran, so a test
 * can assert that the race really happened. All files are real; only the timing is forced.
 */
public final class RacingFileSystem extends FileSystem {
    /** What to do to an entry (a real, default-file-system path) at the racy moment. */
    public interface Action {
        void run(Path real) throws IOException;
    }

    private record Rule(Predicate<Path> which, Action action) {}

    private final FileSystem real = java.nio.file.FileSystems.getDefault();
    private final Provider provider = new Provider();
    private final List<Rule> listed = new ArrayList<>();
    private final List<Rule> opened = new ArrayList<>();
    private final AtomicInteger fired = new AtomicInteger();

    /** {@code path} (on the default file system) as seen through this one. */
    public Path wrap(Path path) {
        return path == null ? null : new RacingPath(path);
    }

    public synchronized RacingFileSystem whenListed(Predicate<Path> which, Action action) {
        listed.add(new Rule(which, action));
        return this;
    }

    public synchronized RacingFileSystem whenOpened(Predicate<Path> which, Action action) {
        opened.add(new Rule(which, action));
        return this;
    }

    /** How many times an action ran. */
    public int fired() {
        return fired.get();
    }

    /** Removes a file, or a folder with everything in it. */
    public static void removeTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> children = Files.newDirectoryStream(path)) {
                for (Path child : children) {
                    removeTree(child);
                }
            }
        }
        Files.delete(path);
    }

    private void fire(List<Rule> rules, Path path) throws IOException {
        List<Rule> matching = new ArrayList<>();
        synchronized (this) {
            for (Rule r : rules) {
                if (r.which.test(path)) {
                    matching.add(r);
                }
            }
        }
        for (Rule r : matching) {
            r.action.run(path);
            fired.incrementAndGet();
        }
    }

    private static Path unwrap(Path path) {
        return path instanceof RacingPath p ? p.real : path;
    }

    // ------------------------------------------------------------------ FileSystem

    @Override
    public FileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public String getSeparator() {
        return real.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        List<Path> roots = new ArrayList<>();
        real.getRootDirectories().forEach(r -> roots.add(wrap(r)));
        return roots;
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return real.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return real.supportedFileAttributeViews();
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrap(real.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher matcher = real.getPathMatcher(syntaxAndPattern);
        return p -> matcher.matches(unwrap(p));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return real.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() {
        throw new UnsupportedOperationException();
    }

    // ------------------------------------------------------------------ Path

    private final class RacingPath implements Path {
        final Path real;

        RacingPath(Path real) {
            this.real = real;
        }

        @Override
        public FileSystem getFileSystem() {
            return RacingFileSystem.this;
        }

        @Override
        public boolean isAbsolute() {
            return real.isAbsolute();
        }

        @Override
        public Path getRoot() {
            return wrap(real.getRoot());
        }

        @Override
        public Path getFileName() {
            return wrap(real.getFileName());
        }

        @Override
        public Path getParent() {
            return wrap(real.getParent());
        }

        @Override
        public int getNameCount() {
            return real.getNameCount();
        }

        @Override
        public Path getName(int index) {
            return wrap(real.getName(index));
        }

        @Override
        public Path subpath(int beginIndex, int endIndex) {
            return wrap(real.subpath(beginIndex, endIndex));
        }

        @Override
        public boolean startsWith(Path other) {
            return real.startsWith(unwrap(other));
        }

        @Override
        public boolean endsWith(Path other) {
            return real.endsWith(unwrap(other));
        }

        @Override
        public Path normalize() {
            return wrap(real.normalize());
        }

        @Override
        public Path resolve(Path other) {
            return wrap(real.resolve(unwrap(other)));
        }

        @Override
        public Path relativize(Path other) {
            return wrap(real.relativize(unwrap(other)));
        }

        @Override
        public URI toUri() {
            return real.toUri();
        }

        @Override
        public Path toAbsolutePath() {
            return wrap(real.toAbsolutePath());
        }

        @Override
        public Path toRealPath(LinkOption... options) throws IOException {
            return wrap(real.toRealPath(options));
        }

        @Override
        public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int compareTo(Path other) {
            return real.compareTo(unwrap(other));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RacingPath p && p.getFileSystem() == getFileSystem() && p.real.equals(real);
        }

        @Override
        public int hashCode() {
            return real.hashCode();
        }

        @Override
        public String toString() {
            return real.toString();
        }
    }

    // ------------------------------------------------------------------ provider

    private final class Provider extends FileSystemProvider {
        @Override
        public String getScheme() {
            return "racing";
        }

        @Override
        public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileSystem getFileSystem(URI uri) {
            return RacingFileSystem.this;
        }

        @Override
        public Path getPath(URI uri) {
            return wrap(Path.of(uri));
        }

        @Override
        public SeekableByteChannel newByteChannel(
                Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
            return Files.newByteChannel(unwrap(path), options, attrs);
        }

        @Override
        public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException {
            return FileChannel.open(unwrap(path), options, attrs);
        }

        @Override
        public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
                throws IOException {
            fire(opened, unwrap(dir));
            DirectoryStream<Path> inner = Files.newDirectoryStream(unwrap(dir));
            return new DirectoryStream<>() {
                @Override
                public Iterator<Path> iterator() {
                    Iterator<Path> names = inner.iterator();
                    return new Iterator<>() {
                        private Path next;

                        @Override
                        public boolean hasNext() {
                            try {
                                while (next == null && names.hasNext()) {
                                    Path candidate = wrap(names.next());
                                    if (filter.accept(candidate)) {
                                        next = candidate;
                                    }
                                }
                            } catch (IOException e) {
                                throw new DirectoryIteratorException(e);
                            }
                            return next != null;
                        }

                        @Override
                        public Path next() {
                            if (!hasNext()) {
                                throw new NoSuchElementException();
                            }
                            Path entry = next;
                            next = null;
                            // The name has been read; the caller has not looked at the entry yet.
                            try {
                                fire(listed, unwrap(entry));
                            } catch (IOException e) {
                                throw new DirectoryIteratorException(e);
                            }
                            return entry;
                        }
                    };
                }

                @Override
                public void close() throws IOException {
                    inner.close();
                }
            };
        }

        @Override
        public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
            Files.createDirectory(unwrap(dir), attrs);
        }

        @Override
        public void createLink(Path link, Path existing) throws IOException {
            Files.createLink(unwrap(link), unwrap(existing));
        }

        @Override
        public void delete(Path path) throws IOException {
            Files.delete(unwrap(path));
        }

        @Override
        public void copy(Path source, Path target, CopyOption... options) throws IOException {
            Files.copy(unwrap(source), unwrap(target), options);
        }

        @Override
        public void move(Path source, Path target, CopyOption... options) throws IOException {
            Files.move(unwrap(source), unwrap(target), options);
        }

        @Override
        public boolean isSameFile(Path path, Path path2) throws IOException {
            return Files.isSameFile(unwrap(path), unwrap(path2));
        }

        @Override
        public boolean isHidden(Path path) throws IOException {
            return Files.isHidden(unwrap(path));
        }

        @Override
        public FileStore getFileStore(Path path) throws IOException {
            return Files.getFileStore(unwrap(path));
        }

        @Override
        public void checkAccess(Path path, AccessMode... modes) throws IOException {
            Path p = unwrap(path);
            p.getFileSystem().provider().checkAccess(p, modes);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
            return Files.getFileAttributeView(unwrap(path), type, options);
        }

        @Override
        public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
                throws IOException {
            return Files.readAttributes(unwrap(path), type, options);
        }

        @Override
        public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
                throws IOException {
            return Files.readAttributes(unwrap(path), attributes, options);
        }

        @Override
        public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
            Files.setAttribute(unwrap(path), attribute, value, options);
        }
    }
}
