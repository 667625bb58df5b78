package io.walsink.shard;

import io.walsink.annotation.Internal;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * When the first row of each of a shard's memtables not yet published arrived: the active one
 * decides {@code sink.memtable.max-age}, and each publication reports how long its oldest rows
 * waited to become visible. Memtables become SSTables and are published in the order they froze.
 */
@Internal
public final class MemtableAges {
    private Long activeSince;
    private final ArrayDeque<Long> frozenSince = new ArrayDeque<>();

    /** Rows a restore rebuilt (replayed or re-appended) count as arrived {@code now}. */
    public void restored(ShardWriter shard, long now) {
        for (int i = 0; i < shard.frozenMemtables(); i++) {
            frozenSince.add(now);
        }
        activeSince = shard.unflushedBytes() > 0 ? now : null;
    }

    /** Whether the active memtable's first row has arrived; until then a row needs the time. */
    public boolean activeStarted() {
        return activeSince != null;
    }

    /** A row went into the active memtable, which may have frozen after it (full). */
    public void rowWritten(long now, boolean froze) {
        if (activeSince == null) {
            activeSince = now;
        }
        if (froze) {
            frozenSince.add(activeSince);
            activeSince = null;
        }
    }

    public boolean activeOlderThan(long now, long maxAgeMillis) {
        return activeSince != null && now - activeSince >= maxAgeMillis;
    }

    /** When the active memtable's first row arrived; {@code Long.MAX_VALUE} while it has none. */
    public long activeSince() {
        return activeSince == null ? Long.MAX_VALUE : activeSince;
    }

    /** Freezes the shard's active memtable (a no-op without rows). */
    public void freeze(ShardWriter shard, long now) {
        int before = shard.frozenMemtables();
        shard.freezeActive();
        if (shard.frozenMemtables() > before) {
            frozenSince.add(activeSince == null ? now : activeSince);
        }
        activeSince = null;
    }

    /** {@code count} SSTables were published: reports the wait of each one's first row. */
    public void published(int count, long now, LongConsumer waitedMillis) {
        for (int i = 0; i < count && !frozenSince.isEmpty(); i++) {
            waitedMillis.accept(now - frozenSince.poll());
        }
    }
}
