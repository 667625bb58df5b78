package io.walsink.table.stream;

import io.walsink.format.manifest.SsTable;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a reader found each generation it has not yet emitted whole, for the lag in time: the
 * age of the oldest one says how long the read has been behind, independent of how many rows
 * the generations hold. Found, not published: a generation is found at most one discovery
 * interval after its publication (manifests carry no time), and a restored reader counts its
 * checkpoint's queued generations from the restore. Read by the metric reporter's thread.
 */
final class PendingGenerations {
    private final Clock clock;
    private final Map<String, Long> foundAt = new ConcurrentHashMap<>();

    PendingGenerations(Clock clock) {
        this.clock = clock;
    }

    void found(UUID shard, List<SsTable> queued) {
        long now = clock.millis();
        queued.forEach(t -> foundAt.putIfAbsent(key(shard, t.generation()), now));
    }

    void emitted(UUID shard, long generation) {
        foundAt.remove(key(shard, generation));
    }

    /** Milliseconds since the oldest generation not yet emitted whole was found; 0 when none is pending. */
    long oldestMillis() {
        long now = clock.millis();
        return foundAt.values().stream()
                .mapToLong(at -> Math.max(0, now - at))
                .max()
                .orElse(0);
    }

    private static String key(UUID shard, long generation) {
        return shard + "/" + generation;
    }
}
