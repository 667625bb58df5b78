package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The active memtable and the frozen ones not yet written as SSTables, oldest first.
 *
 * <p>{@link #oldestPending()} is what keeps WAL append order equal to recency order across a
 * freeze: a frozen memtable's tail holds older rows than anything in the active one, so it must
 * reach the WAL first. The choice is made when an append starts, not when it was requested,
 * because a freeze may happen in between.
 */
@Internal
public final class MemtableSet implements AutoCloseable {
    private final Deque<Memtable> frozen = new ArrayDeque<>();
    private Memtable active;

    public MemtableSet(Memtable active) {
        this.active = active;
    }

    public Memtable active() {
        return active;
    }

    /** Frozen memtables, oldest first (a read-only view). */
    public int frozenCount() {
        return frozen.size();
    }

    public java.util.Collection<Memtable> frozen() {
        return java.util.Collections.unmodifiableCollection(frozen);
    }

    /**
     * Freezes the active memtable and makes {@code next} active. Generations only grow; replay may
     * skip numbers whose SSTables were written by a failed attempt and never published.
     */
    public Memtable freezeActive(Memtable next) {
        if (next.generation() <= active.generation()) {
            throw new IllegalArgumentException(
                    "next memtable must be a generation after " + active.generation() + ", was " + next.generation());
        }
        Memtable outgoing = active;
        outgoing.freeze();
        frozen.addLast(outgoing);
        active = next;
        return outgoing;
    }

    /** The oldest memtable that still owes rows to the WAL: frozen ones first, then the active. */
    public Optional<Memtable> oldestPending() {
        for (Memtable m : frozen) {
            if (m.hasPendingRows()) {
                return Optional.of(m);
            }
        }
        return active.hasPendingRows() ? Optional.of(active) : Optional.empty();
    }

    public boolean hasPendingRows() {
        return oldestPending().isPresent();
    }

    /** The oldest frozen memtable, if any: the next one to become an SSTable. */
    public Optional<Memtable> oldestFrozen() {
        return Optional.ofNullable(frozen.peekFirst());
    }

    /** Replaces an empty active memtable (replay found that its rows start at another generation). */
    public void replaceEmptyActive(Memtable replacement) {
        if (active.rows() > 0) {
            throw new IllegalStateException("active memtable generation " + active.generation() + " holds rows");
        }
        active.close();
        active = replacement;
    }

    /** Removes the oldest frozen memtable once its SSTable is written, and releases it. */
    public void retireOldestFrozen(Memtable expected) {
        if (frozen.peekFirst() != expected) {
            throw new IllegalStateException("memtables must retire oldest first; generation " + expected.generation()
                    + " is not the oldest frozen");
        }
        frozen.removeFirst().close();
    }

    /** Bytes held in memtables not yet written as SSTables (the backpressure measure). */
    public long unflushedBytes() {
        long bytes = active.payloadBytes() + active.primaryKeyIndexBytes();
        for (Memtable m : frozen) {
            bytes += m.payloadBytes() + m.primaryKeyIndexBytes();
        }
        return bytes;
    }

    /** Rows put but not yet in the WAL, over all memtables. */
    public long pendingRows() {
        long rows = 0;
        for (Memtable m : all()) {
            rows += m.rows() - m.durableRows();
        }
        return rows;
    }

    /** Bytes of rows put but not yet in the WAL, over all memtables. */
    public long pendingBytes() {
        long bytes = 0;
        for (Memtable m : all()) {
            bytes += m.pendingBytes();
        }
        return bytes;
    }

    /** All memtables, oldest first. */
    public List<Memtable> all() {
        List<Memtable> all = new ArrayList<>(frozen);
        all.add(active);
        return all;
    }

    @Override
    public void close() {
        for (Memtable m : frozen) {
            m.close();
        }
        frozen.clear();
        active.close();
    }
}
