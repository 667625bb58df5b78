package io.walsink.testing;

import io.walsink.format.BitReversedName;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call through and counts writes as they start and as they complete, WAL entries
 * (objects under a shard's {@code wal/} folder, sentinels included) apart from other objects
 * (manifests, job-start records). Counting at the start of a call sees a write even while it is
 * still running, which a look at the stored objects would miss. Reads are counted by kind:
 * object reads (whole or a range), existence checks (head) and listing pages.
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
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong heads = new AtomicLong();
    private final AtomicLong listPages = new AtomicLong();

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

    /** Object reads, whole or a range. */
    public long gets() {
        return gets.get();
    }

    /** Existence and metadata checks. */
    public long heads() {
        return heads.get();
    }

    /** Listing requests (one per page). */
    public long listPages() {
        return listPages.get();
    }

    @Override
    public byte[] get(String key) {
        gets.incrementAndGet();
        return delegate().get(key);
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        gets.incrementAndGet();
        return delegate().getRange(key, offset, length);
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        heads.incrementAndGet();
        return delegate().head(key);
    }

    @Override
    public ListPage list(String prefix, String continuation, int maxKeys) {
        listPages.incrementAndGet();
        return delegate().list(prefix, continuation, maxKeys);
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
