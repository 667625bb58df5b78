package io.walsink.table.lookup;

import io.walsink.annotation.Internal;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;

/**
 * A walsink table's lookup settings, checked when the table is declared ({@code lookup.*}
 * options): Flink's partial or full cache is built from them per job, and the function (or the
 * full cache's loads) retries and refreshes as they say.
 *
 * @param partialCache whether probes go through Flink's partial cache
 * @param fullCache null unless probes are answered from Flink's full cache, loaded and reloaded
 *     as it says
 * @param expireAfterAccess null when unset; likewise {@code expireAfterWrite} and {@code maxRows}
 * @param maxRetries how often a failed lookup is tried again
 * @param refreshInterval how long opened versions are used unchecked; zero checks at every lookup
 */
@Internal
public record LookupConfig(
        boolean partialCache,
        Duration expireAfterAccess,
        Duration expireAfterWrite,
        Long maxRows,
        boolean cacheMissingKey,
        int maxRetries,
        Duration refreshInterval,
        FullCacheReload fullCache)
        implements Serializable {

    public LookupConfig {
        Objects.requireNonNull(refreshInterval, "refreshInterval");
        if (partialCache && fullCache != null) {
            throw new IllegalArgumentException("a lookup has a partial or a full cache, not both");
        }
    }

    /** No cache, three retries, a check for new versions at every lookup. */
    public static LookupConfig defaults() {
        return new LookupConfig(false, null, null, null, true, 3, Duration.ZERO, null);
    }

    /**
     * Flink's cache for these settings, a new one each call (a cache belongs to one job); empty
     * without a partial cache.
     *
     * @throws IllegalArgumentException if a partial cache has no bound (Flink's own check)
     */
    public Optional<LookupCache> cache() {
        if (!partialCache) {
            return Optional.empty();
        }
        DefaultLookupCache.Builder cache = DefaultLookupCache.newBuilder().cacheMissingKey(cacheMissingKey);
        if (expireAfterAccess != null) {
            cache.expireAfterAccess(expireAfterAccess);
        }
        if (expireAfterWrite != null) {
            cache.expireAfterWrite(expireAfterWrite);
        }
        if (maxRows != null) {
            cache.maximumSize(maxRows);
        }
        return Optional.of(cache.build());
    }

    /** For the log line a lookup writes when it opens. */
    public String describe() {
        if (fullCache != null) {
            return "FULL cache (" + fullCache.describe() + ")";
        }
        return partialCache
                ? "PARTIAL cache (expire after access " + expireAfterAccess + ", after write " + expireAfterWrite
                        + ", max rows " + maxRows + ", missing keys cached " + cacheMissingKey + ")"
                : "no cache";
    }
}
