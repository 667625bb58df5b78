package io.walsink.flink;

import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds conditional writes of chosen keys (WAL entries, manifest versions) while its gate is
 * closed, so a test decides when an append or a publication may finish.
 * The gate is static: the sink's store wrapper is serialized with the operator.
 */
final class GatedStore implements ObjectStore {
    private static volatile CountDownLatch gate = new CountDownLatch(0);
    private static volatile String gatedKeys = "/wal/";
    private static final AtomicInteger HELD = new AtomicInteger();

    private final ObjectStore delegate;

    GatedStore(ObjectStore delegate) {
        this.delegate = delegate;
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
        delegate.putIfAbsent(key, data);
    }

    @Override
    public void put(String key, byte[] data) {
        delegate.put(key, data);
    }

    @Override
    public byte[] get(String key) {
        return delegate.get(key);
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        return delegate.getRange(key, offset, length);
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        return delegate.head(key);
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        return delegate.list(prefix, continuation, maxKeys);
    }

    @Override
    public void delete(String key) {
        delegate.delete(key);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
