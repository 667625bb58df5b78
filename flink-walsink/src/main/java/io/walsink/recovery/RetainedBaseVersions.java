package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.shard.ShardWriterConfig;
import java.time.Duration;
import java.util.OptionalLong;
import org.lance.Dataset;
import org.lance.Version;
import org.lance.cleanup.CleanupPolicy;

/**
 * Which base table versions a cleanup must keep for restores. A checkpoint records the base version
 * its shards build on: the latest when it was read, which a snapshot reads again once it is older
 * than {@link ShardWriterConfig#baseVersionMaxAge(Duration)} of the retention. So a checkpoint taken at {@code t}
 * records a version that was the latest at some moment since {@code t - maxAge}, and keeping every
 * version that was the latest at some moment within the retention plus that age ({@link #kept})
 * keeps the version of every checkpoint within the retention. lance-core's own age cut ({@code
 * withBeforeTimestampMillis}) goes by when a version was written, and would remove a version
 * written long ago that was the latest until a minute ago.
 */
@Internal
public final class RetainedBaseVersions {
    private RetainedBaseVersions() {}

    /**
     * A policy removing the versions before the one that was the latest {@link #kept}{@code
     * (retention)} before {@code nowMillis}, and before {@code consumerPinned} (the oldest version a
     * live consumer's snapshot reads) if that is older. Versions a tag names are kept, without
     * failing the cleanup (lance-core's default fails it whenever a tagged version is older than the
     * cut, and would stop every later cleanup); other branches are not cleaned, and lance-core keeps
     * what they reference.
     */
    public static CleanupPolicy cleanupPolicy(
            Dataset base, Duration retention, long nowMillis, OptionalLong consumerPinned) {
        long keep = oldestRetained(base, kept(retention), nowMillis);
        return CleanupPolicy.builder()
                .withBeforeVersion(Math.min(keep, consumerPinned.orElse(keep)))
                .withErrorIfTaggedOldVersions(false)
                .withCleanReferencedBranches(false)
                .build();
    }

    /**
     * How far back the versions that were the latest are kept for a checkpoint {@code retention}:
     * the retention and the oldest a snapshot's recorded version may be.
     */
    public static Duration kept(Duration retention) {
        return retention.plus(ShardWriterConfig.baseVersionMaxAge(retention));
    }

    /** The version that was the latest {@code window} before {@code nowMillis}; the first version if none was yet. */
    public static long oldestRetained(Dataset base, Duration window, long nowMillis) {
        long cut = nowMillis - window.toMillis();
        long oldest = 1;
        for (Version v : base.listVersions()) {
            if (v.getDataTime().toInstant().toEpochMilli() <= cut) {
                oldest = Math.max(oldest, v.getId());
            }
        }
        return oldest;
    }
}
