package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Content the local store takes as it comes (WAL entries): every byte arrives in order whatever
 * mix of buffers writes it, a taken key is refused before anything is written, a failed writing
 * leaves neither object nor temporary file, and no memory outlives a put.
 */
class LocalObjectStoreContentTest {
    private static final int SLICE = LocalObjectStore.WRITE_SLICE_BYTES;

    @TempDir
    Path root;

    /** Chunks of random bytes, each written as a heap or a direct buffer; counts its writings. */
    private static final class Chunks implements ObjectContent {
        final List<byte[]> chunks = new ArrayList<>();
        final List<Boolean> direct = new ArrayList<>();
        final AtomicInteger writings = new AtomicInteger();

        Chunks add(byte[] chunk, boolean asDirect) {
            chunks.add(chunk);
            direct.add(asDirect);
            return this;
        }

        @Override
        public void writeTo(WritableByteChannel out) throws IOException {
            writings.incrementAndGet();
            for (int i = 0; i < chunks.size(); i++) {
                byte[] c = chunks.get(i);
                ByteBuffer b = direct.get(i)
                        ? ByteBuffer.allocateDirect(c.length).put(c).flip()
                        : ByteBuffer.wrap(c);
                while (b.hasRemaining()) {
                    out.write(b);
                }
            }
        }

        @Override
        public long expectedBytes() {
            return chunks.stream().mapToLong(c -> c.length).sum();
        }

        byte[] all() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            chunks.forEach(out::writeBytes);
            return out.toByteArray();
        }
    }

    /** {@code c}'s chunks as heap buffers only: the test itself allocates no direct memory then. */
    private static ObjectContent heapOnly(Chunks c) {
        return new ObjectContent() {
            @Override
            public void writeTo(WritableByteChannel out) throws IOException {
                for (byte[] chunk : c.chunks) {
                    out.write(ByteBuffer.wrap(chunk));
                }
            }

            @Override
            public long expectedBytes() {
                return c.expectedBytes();
            }
        };
    }

    private static byte[] random(SplittableRandom random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt();
        }
        return b;
    }

    @Test
    void everyByteArrivesInOrderWhateverBuffersWriteIt() {
        long seed = System.nanoTime();
        System.out.println("everyByteArrivesInOrderWhateverBuffersWriteIt seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        LocalObjectStore local = new LocalObjectStore(root);
        ObjectStore retrying = new RetryingObjectStore(local, RetryPolicy.DEFAULT);
        int[] sizes = {0, 1, 8, 4096, SLICE - 1, SLICE, SLICE + 1, 3 * SLICE + 17};
        for (int object = 0; object < 12; object++) {
            Chunks content = new Chunks();
            int chunks = 1 + random.nextInt(40);
            for (int c = 0; c < chunks; c++) {
                int size = random.nextInt(4) == 0 ? sizes[random.nextInt(sizes.length)] : random.nextInt(5000);
                content.add(random(random, size), random.nextBoolean());
            }
            String key = "wal/" + object + ".arrow";
            (object % 2 == 0 ? local : retrying).putIfAbsent(key, content);
            assertThat(local.get(key)).as("object %d, seed %d", object, seed).isEqualTo(content.all());
            assertThat(content.writings).hasValue(1);
        }
    }

    @Test
    void aTakenKeyIsRefusedBeforeTheContentIsWritten() {
        LocalObjectStore store = new LocalObjectStore(root);
        store.putIfAbsent("wal/a", new byte[] {1});
        Chunks content = new Chunks().add(new byte[] {2}, true);
        assertThatThrownBy(() -> store.putIfAbsent("wal/a", content)).isInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(content.writings).hasValue(0);
        assertThat(store.get("wal/a")).containsExactly(1);
    }

    @Test
    void aWritingThatFailsLeavesNoObjectAndNoTemporaryFile() throws IOException {
        LocalObjectStore store = new LocalObjectStore(root);
        AtomicInteger writings = new AtomicInteger();
        ObjectContent failing = new ObjectContent() {
            @Override
            public void writeTo(WritableByteChannel out) throws IOException {
                writings.incrementAndGet();
                out.write(ByteBuffer.allocateDirect(2 * SLICE)); // past the stage: on disk already
                throw new IOException("the encoder failed half way");
            }

            @Override
            public long expectedBytes() {
                return 4 * SLICE;
            }
        };
        assertThatThrownBy(() -> store.putIfAbsent("wal/b", failing))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("half way");
        assertThat(writings).hasValue(1);
        assertThat(store.head("wal/b")).isEmpty();
        try (Stream<Path> files = Files.walk(root)) {
            assertThat(files.filter(Files::isRegularFile)).isEmpty();
        }
    }

    @Test
    void aRetriedPutWritesTheContentAgain() {
        LocalObjectStore local = new LocalObjectStore(root);
        AtomicInteger attempts = new AtomicInteger();
        ObjectStore failsOnce = new ForwardingObjectStore(local) {
            @Override
            public void putIfAbsent(String key, byte[] data) {
                if (attempts.incrementAndGet() == 1) {
                    throw new StorageException(key, "a transient failure", true, null);
                }
                delegate().putIfAbsent(key, data);
            }
        };
        ObjectStore retrying =
                new RetryingObjectStore(failsOnce, RetryPolicy.DEFAULT, duration -> {}, new java.util.Random(1));
        Chunks content = new Chunks().add(new byte[] {1, 2, 3}, false).add(new byte[SLICE + 5], true);
        retrying.putIfAbsent("wal/c", content);
        assertThat(attempts).as("the fault fired, then the retry").hasValue(2);
        assertThat(content.writings).hasValue(2);
        assertThat(local.get("wal/c")).isEqualTo(content.all());
    }

    /**
     * WAL entries grow with the rate: a put's stage is freed when the put ends, and no direct
     * buffer of the JDK's is kept for the thread (one kept per thread outlived it until a GC).
     */
    @Test
    void streamedPutsKeepNoDirectMemory() throws Exception {
        LocalObjectStore store = new LocalObjectStore(root);
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        List<Chunks> contents = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // 1.5 MiB to 3 MiB in 16 KiB buffers
            Chunks c = new Chunks();
            for (int k = 0; k < (3 + i) << 5; k++) {
                c.add(new byte[1 << 14], false);
            }
            contents.add(c);
        }
        AtomicLong grown = new AtomicLong(-1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(
                () -> { // a new thread: no buffer kept for it yet
                    try {
                        long before = direct.getTotalCapacity();
                        for (int i = 0; i < contents.size(); i++) {
                            store.putIfAbsent("wal/" + i, heapOnly(contents.get(i)));
                        }
                        grown.set(direct.getTotalCapacity() - before);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
        writer.start();
        writer.join(Duration.ofMinutes(2).toMillis());
        assertThat(writer.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(grown.get()).as("direct memory the writing thread kept").isZero();
        for (int i = 0; i < contents.size(); i++) { // read here: a read keeps a JDK buffer for its thread
            assertThat(store.get("wal/" + i)).isEqualTo(contents.get(i).all());
        }
    }

    /** A put's stage goes back to the store and serves the next put: its pages are faulted in once. */
    @Test
    void putsReuseOneStageAndTheStoresCloseFreesIt() {
        StagePool pool = new StagePool(SLICE, LocalObjectStore.KEPT_STAGES);
        LocalObjectStore store = new LocalObjectStore(root, Duration.ofHours(1), java.time.Clock.systemUTC(), pool);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 20; i++) {
            Chunks content = new Chunks()
                    .add(random(random, random.nextInt(3 * SLICE)), false)
                    .add(random(random, 100), true);
            store.putIfAbsent("wal/" + i, content);
            assertThat(store.get("wal/" + i)).isEqualTo(content.all());
        }
        assertThat(pool.allocations())
                .as("stages allocated for 20 puts, one after another")
                .isEqualTo(1);
        assertThat(pool.live()).isEqualTo(1);
        store.close();
        assertThat(pool.live()).as("stages left after the store's close").isZero();

        Chunks late = new Chunks().add(new byte[] {4, 5}, false);
        store.putIfAbsent("wal/late", late); // a closed store still puts, and keeps nothing
        assertThat(store.get("wal/late")).containsExactly(4, 5);
        assertThat(pool.allocations()).isEqualTo(2);
        assertThat(pool.live()).isZero();
    }

    /** Closing the store while a put writes through its stage must not free that stage under it. */
    @Test
    void aStageInUseWhenTheStoreClosesIsFreedWhenItsPutEnds() {
        StagePool pool = new StagePool(SLICE, LocalObjectStore.KEPT_STAGES);
        LocalObjectStore store = new LocalObjectStore(root, Duration.ofHours(1), java.time.Clock.systemUTC(), pool);
        AtomicInteger liveWhileWriting = new AtomicInteger(-1);
        ObjectContent closesTheStore = new ObjectContent() {
            @Override
            public void writeTo(WritableByteChannel out) throws IOException {
                out.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                store.close();
                liveWhileWriting.set(pool.live());
                out.write(ByteBuffer.wrap(new byte[] {4, 5}));
            }

            @Override
            public long expectedBytes() {
                return 5;
            }
        };
        store.putIfAbsent("wal/d", closesTheStore);
        assertThat(liveWhileWriting).as("the stage in use after the close").hasValue(1);
        assertThat(store.get("wal/d")).containsExactly(1, 2, 3, 4, 5);
        assertThat(pool.live()).as("freed when the put ended").isZero();
    }

    /** Puts at once take a stage each; the store keeps no more of them idle than its bound. */
    @Test
    void concurrentPutsTakeAStageEachAndAtMostTheBoundStaysKept() throws Exception {
        int threads = 4;
        StagePool pool = new StagePool(SLICE, 2);
        LocalObjectStore store = new LocalObjectStore(root, Duration.ofHours(1), java.time.Clock.systemUTC(), pool);
        java.util.concurrent.CyclicBarrier allWriting = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> puts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                byte value = (byte) t;
                puts.add(executor.submit(() -> store.putIfAbsent("wal/" + value, new ObjectContent() {
                    @Override
                    public void writeTo(WritableByteChannel out) throws IOException {
                        out.write(ByteBuffer.wrap(new byte[] {value}));
                        try {
                            allWriting.await(1, java.util.concurrent.TimeUnit.MINUTES); // every put holds its stage
                        } catch (Exception e) {
                            throw new IOException(e);
                        }
                        out.write(ByteBuffer.wrap(new byte[] {value}));
                    }

                    @Override
                    public long expectedBytes() {
                        return 2;
                    }
                })));
            }
            for (java.util.concurrent.Future<?> put : puts) {
                put.get(1, java.util.concurrent.TimeUnit.MINUTES);
            }
        } finally {
            executor.shutdownNow();
        }
        for (int t = 0; t < threads; t++) {
            assertThat(store.get("wal/" + t)).containsExactly(t, t);
        }
        assertThat(pool.allocations()).as("stages of four puts at once").isEqualTo(threads);
        assertThat(pool.live()).as("kept idle: the bound").isEqualTo(2);
        store.close();
        assertThat(pool.live()).isZero();
    }

    /** The stage is handed back at close: a write after it must fail, not touch memory it no longer owns. */
    @Test
    void aClosedStageRefusesWrites() throws IOException {
        try (FileChannel file =
                FileChannel.open(root.resolve("f"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            StagePool pool = new StagePool(SLICE, 1);
            StagedFileWrites out = new StagedFileWrites(file, pool);
            out.write(ByteBuffer.wrap(new byte[] {1, 2}));
            out.flush();
            out.close();
            out.close(); // once handed back, not twice
            assertThat(pool.live()).as("the stage kept for the next writes").isEqualTo(1);
            assertThatThrownBy(() -> out.write(ByteBuffer.wrap(new byte[] {3})))
                    .isInstanceOf(ClosedChannelException.class);
            assertThatThrownBy(out::flush).isInstanceOf(ClosedChannelException.class);
        }
        assertThat(Files.readAllBytes(root.resolve("f"))).containsExactly(1, 2);
    }
}
