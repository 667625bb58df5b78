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

    /** The stage is freed at close: a write after it must fail, not touch freed memory. */
    @Test
    void aClosedStageRefusesWrites() throws IOException {
        try (FileChannel file =
                FileChannel.open(root.resolve("f"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            StagedFileWrites out = new StagedFileWrites(file);
            out.write(ByteBuffer.wrap(new byte[] {1, 2}));
            out.flush();
            out.close();
            out.close(); // once freed, not twice
            assertThatThrownBy(() -> out.write(ByteBuffer.wrap(new byte[] {3})))
                    .isInstanceOf(ClosedChannelException.class);
            assertThatThrownBy(out::flush).isInstanceOf(ClosedChannelException.class);
        }
        assertThat(Files.readAllBytes(root.resolve("f"))).containsExactly(1, 2);
    }
}
