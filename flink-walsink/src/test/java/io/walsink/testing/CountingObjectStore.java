package io.walsink.testing;

import io.walsink.format.BitReversedName;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call through and counts writes as they start and as they complete, WAL entries
 * (objects under a shard's {@code wal/} folder, sentinels included) apart from other objects
 * (manifests, job-start records). Counting at the start of a call sees a write even while it is
 * still running, which a look at the stored objects would miss.
 */
public final class CountingObjectStore extends ForwardingObjectStore {
    /** Told about every WAL entry write that completed (after the counter moved). */
    @FunctionalInterface
    public interface Listener {
        void walPutCompleted(String key);
    }

    private final Listener listener;
    private final AtomicLong walPutsStarted = new AtomicLong();
    private final AtomicLong walPutsCompleted = new AtomicLong();
    private final AtomicLong otherPutsStarted = new AtomicLong();

    public CountingObjectStore(ObjectStore delegate) {
        this(delegate, key -> {});
    }

    public CountingObjectStore(ObjectStore delegate, Listener listener) {
        super(delegate);
        this.listener = listener;
    }

    /** WAL entry writes (put-if-absent or put) that have started, whatever their outcome. */
    public long walPutsStarted() {
        return walPutsStarted.get();
    }

    /** WAL entry writes that returned normally. */
    public long walPutsCompleted() {
        return walPutsCompleted.get();
    }

    /** Writes of any other object that have started. */
    public long otherPutsStarted() {
        return otherPutsStarted.get();
    }

    public static boolean isWalEntry(String key) {
        int slash = key.lastIndexOf('/');
        return key.startsWith("_mem_wal/")
                && key.substring(0, slash + 1).endsWith("/wal/")
                && BitReversedName.parseWalEntryPosition(key.substring(slash + 1))
                        .isPresent();
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        boolean wal = started(key);
        delegate().putIfAbsent(key, data);
        completed(wal, key);
    }

    @Override
    public void put(String key, byte[] data) {
        boolean wal = started(key);
        delegate().put(key, data);
        completed(wal, key);
    }

    private boolean started(String key) {
        boolean wal = isWalEntry(key);
        (wal ? walPutsStarted : otherPutsStarted).incrementAndGet();
        return wal;
    }

    private void completed(boolean wal, String key) {
        if (wal) {
            walPutsCompleted.incrementAndGet();
            listener.walPutCompleted(key);
        }
    }
}
