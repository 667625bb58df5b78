package io.walsink.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What only the file-system store has: temporary files, key validation, its root. */
class LocalObjectStoreTest {
    /** The format's WAL-entry / manifest name: a stem of exactly 64 binary digits. */
    private static final Pattern WAL_OR_MANIFEST = Pattern.compile("[01]{64}\\.(arrow|binpb)");

    @TempDir
    Path root;

    @Test
    void temporaryNamesNeverLookLikeWalEntriesOrManifests() {
        for (int i = 0; i < 10_000; i++) {
            String name = TemporaryFileNames.next();
            assertThat(name).doesNotMatch(WAL_OR_MANIFEST);
            assertThat(TemporaryFileNames.isTemporary(name)).isTrue();
        }
        assertThat(TemporaryFileNames.isTemporary("1" + "0".repeat(63) + ".arrow"))
                .isFalse();
    }

    /**
     * Growing objects (WAL entries grow with the rate) must not make the JDK's per-thread copy
     * buffer grow with them: each larger one was a fresh direct buffer, zeroed and page-faulted.
     */
    @Test
    void writesOfGrowingObjectsKeepTheThreadsDirectCopyBufferOneSliceLarge() throws Exception {
        LocalObjectStore store = new LocalObjectStore(root);
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        AtomicLong grown = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(
                () -> { // a new thread: no copy buffer kept yet
                    try {
                        long before = direct.getTotalCapacity();
                        for (int i = 0; i < 4; i++) {
                            byte[] data = new byte[(3 + i) << 19]; // 1.5 MiB to 3 MiB
                            Arrays.fill(data, (byte) i);
                            store.putIfAbsent("wal/" + i, data);
                            store.put("manifest/" + i, data);
                        }
                        grown.set(direct.getTotalCapacity() - before);
                        for (int i = 0; i < 4; i++) {
                            byte[] data = new byte[(3 + i) << 19];
                            Arrays.fill(data, (byte) i);
                            assertThat(store.get("wal/" + i)).isEqualTo(data);
                            assertThat(store.get("manifest/" + i)).isEqualTo(data);
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
        writer.start();
        writer.join();
        assertThat(failure.get()).isNull();
        assertThat(grown.get())
                .as("direct buffer bytes the writing thread kept")
                .isLessThan(LocalObjectStore.WRITE_SLICE_BYTES + (1L << 20));
    }

    @Test
    void leftoverTemporaryFilesAreNotListed() throws IOException {
        LocalObjectStore store = new LocalObjectStore(root);
        String entry = "1" + "0".repeat(63) + ".arrow";
        store.putIfAbsent("wal/" + entry, "entry".getBytes(UTF_8));
        Files.write(root.resolve("wal").resolve(TemporaryFileNames.next()), new byte[] {1, 2, 3});

        assertThat(store.listAll(""))
                .extracting(ObjectMeta::key, ObjectMeta::size)
                .containsExactly(org.assertj.core.api.Assertions.tuple("wal/" + entry, 5L));
    }

    @Test
    void putsLeaveNoTemporaryFilesBehind() throws IOException {
        LocalObjectStore store = new LocalObjectStore(root);
        store.putIfAbsent("wal/a", new byte[] {1});
        assertThatThrownBy(() -> store.putIfAbsent("wal/a", new byte[] {2}))
                .isInstanceOf(ObjectAlreadyExistsException.class);
        store.put("manifest/version_hint.json", new byte[] {3});
        store.put("manifest/version_hint.json", new byte[] {4});

        try (Stream<Path> files = Files.walk(root)) {
            assertThat(files.filter(Files::isRegularFile)
                            .map(p -> root.relativize(p).toString()))
                    .containsExactlyInAnyOrder("wal/a", "manifest/version_hint.json");
        }
    }

    @Test
    void putIfAbsentDoesNotReplaceAFileWrittenByAnotherProcess() throws IOException {
        LocalObjectStore store = new LocalObjectStore(root);
        Files.createDirectories(root.resolve("wal"));
        Files.write(root.resolve("wal/x"), "theirs".getBytes(UTF_8));

        assertThatThrownBy(() -> store.putIfAbsent("wal/x", "ours".getBytes(UTF_8)))
                .isInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(Files.readString(root.resolve("wal/x"))).isEqualTo("theirs");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/abs", "../escape", "a/../../b", "a//b", "dir/", "./a"})
    void keysThatCouldEscapeTheRootAreRejected(String key) {
        LocalObjectStore store = new LocalObjectStore(root);

        assertThatThrownBy(() -> store.putIfAbsent(key, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.get(key)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void describesItselfAsAFileUri() {
        LocalObjectStore store = new LocalObjectStore(root.resolve("not/yet/created"));

        assertThat(store.describe()).isEqualTo(root.resolve("not/yet/created").toUri() + "/");
        assertThatThrownBy(() -> store.get("k")).hasMessageStartingWith(store.describe() + "k: ");
    }

    @Test
    void aKeyUnderAnObjectIsAClearError() {
        LocalObjectStore store = new LocalObjectStore(root);
        store.putIfAbsent("a", new byte[] {1});

        assertThatThrownBy(() -> store.putIfAbsent("a/b", new byte[] {2}))
                .isInstanceOf(StorageException.class)
                .isNotInstanceOf(ObjectAlreadyExistsException.class)
                .hasMessageContaining("parent of the key is an object");
    }
}
