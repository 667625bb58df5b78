package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectStore;
import java.time.Instant;
import java.util.Optional;

/**
 * What a table's compaction lease says now: the compactor that took it last (process, host and
 * run) and when its lease ends; a released lease ends at the epoch. For tools that show why a
 * compactor was refused (the CLI's {@code inspect}).
 */
@Internal
public record CompactionLeaseHolder(String holder, Instant expiresAt) {
    /** Whether the lease still keeps other compactors out at {@code now}. */
    public boolean heldAt(Instant now) {
        return expiresAt.isAfter(now);
    }

    /** The latest lease entry of the table {@code store} holds; empty if no compactor ever took it. */
    public static Optional<CompactionLeaseHolder> read(ObjectStore store) {
        return CompactionLease.latest(store);
    }
}
