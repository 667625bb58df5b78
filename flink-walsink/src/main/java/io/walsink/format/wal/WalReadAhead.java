package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads a range of a shard's WAL entries in order while the next few are already being fetched.
 *
 * <p>Why: a replay reads its entries one after another, and on S3 each read is a round trip. A
 * tail of many small entries (a shard at a low row rate appends one every flush interval) then
 * cost a request's latency per entry: hundreds of seconds for a few thousand entries. Fetching up
 * to {@code depth} entries ahead overlaps those round trips. Entries are decoded on the caller's
 * thread, one at a time, in position order, so the Arrow memory a replay holds is what it was;
 * only the fetched bytes of up to {@code depth} entries wait on the heap.
 *
 * <p>Not thread-safe: one reader calls {@link #next()}. Closing cancels the fetches still running.
 */
@Internal
public final class WalReadAhead implements AutoCloseable {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final WalLog wal;
    private final ObjectStore store;
    private final long to;
    private final ExecutorService fetchers; // null for a range of at most one entry
    private final Deque<Future<byte[]>> ahead = new ArrayDeque<>();
    private long nextPosition; // the position next() returns
    private long nextFetch; // the next position to start fetching

    WalReadAhead(WalLog wal, ObjectStore store, long from, long to, int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("read-ahead depth must be >= 1, was " + depth);
        }
        this.wal = wal;
        this.store = store;
        this.to = to;
        this.nextPosition = from;
        this.nextFetch = from;
        long entries = to - from + 1;
        if (entries <= 1 || depth == 1) {
            fetchers = null;
            return;
        }
        int threads = (int) Math.min(depth, entries);
        String name = "walsink-wal-read-" + POOLS.incrementAndGet() + "-";
        AtomicInteger count = new AtomicInteger();
        fetchers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < threads; i++) {
            fetchAhead();
        }
    }

    /** Whether positions remain in the range. */
    public boolean hasNext() {
        return nextPosition <= to;
    }

    /** The position {@link #next()} returns next. */
    public long position() {
        return nextPosition;
    }

    /**
     * The decoded entry at {@link #position()}, owned by the caller, or empty if that entry does
     * not exist; either way the reader moves on to the next position.
     */
    public Optional<WalEntry> next() {
        if (!hasNext()) {
            throw new IllegalStateException("WAL read past position " + to);
        }
        long position = nextPosition++;
        byte[] bytes;
        if (fetchers == null) {
            bytes = fetch(position);
        } else {
            Future<byte[]> fetched = ahead.removeFirst();
            fetchAhead();
            bytes = await(fetched);
        }
        return bytes == null ? Optional.empty() : Optional.of(wal.decode(position, bytes));
    }

    private void fetchAhead() {
        if (nextFetch <= to) {
            long position = nextFetch++;
            ahead.addLast(fetchers.submit(() -> fetch(position)));
        }
    }

    /** The entry's bytes, or null if there is none. */
    private byte[] fetch(long position) {
        try {
            return store.get(wal.key(position));
        } catch (ObjectNotFoundException e) {
            return null;
        }
    }

    private static byte[] await(Future<byte[]> fetched) {
        try {
            return fetched.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the WAL", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        if (fetchers != null) {
            ahead.forEach(f -> f.cancel(true));
            ahead.clear();
            fetchers.shutdownNow();
        }
    }
}
