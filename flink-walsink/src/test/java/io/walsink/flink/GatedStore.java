package io.walsink.flink;

import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds conditional writes of chosen keys (WAL entries, manifest versions) while its gate is
 * closed, so a test decides when an append or a publication may finish.
 * The gate is static: the sink's store wrapper is serialized with the operator.
 */
final class GatedStore extends ForwardingObjectStore {
    private static volatile CountDownLatch gate = new CountDownLatch(0);
    private static volatile String gatedKeys = "/wal/";
    private static final AtomicInteger HELD = new AtomicInteger();

    GatedStore(ObjectStore delegate) {
        super(delegate);
    }

    /** Closes the gate for keys containing {@code keyPart}; {@code null} opens it. */
    static void closeFor(String keyPart) {
        gatedKeys = keyPart == null ? "/wal/" : keyPart;
        gate = new CountDownLatch(keyPart == null ? 0 : 1);
        HELD.set(0);
    }

    static void open() {
        gate.countDown();
    }

    /** Writes that found the gate closed. */
    static int held() {
        return HELD.get();
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        CountDownLatch current = gate;
        if (key.contains(gatedKeys) && current.getCount() > 0) {
            HELD.incrementAndGet();
            try {
                if (!current.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("test gate never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        delegate().putIfAbsent(key, data);
    }
}
