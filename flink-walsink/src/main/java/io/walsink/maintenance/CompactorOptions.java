package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import io.walsink.recovery.CompactionLease;
import java.time.Duration;
import java.util.Optional;
import org.lance.cleanup.CleanupPolicy;
import org.lance.compaction.CompactionOptions;

/**
 * What one {@link Compactor} run does besides merging SSTables, and how much it merges. Everything
 * optional is off by default ({@link #defaults()}; {@link #builder()} changes some): a run merges
 * every published, not yet merged SSTable of every shard
 * and touches nothing else.
 *
 * @param maxGenerationsPerShard at most this many generations are merged per shard in one run (the
 *     oldest ones); {@link Integer#MAX_VALUE} for all
 * @param fileCompaction when present, lance-core's {@code Dataset.compact} rewrites the base table's
 *     small fragments after the merges. It must defer index remapping ({@code
 *     withDeferIndexRemap(true)}): lance-core 7.0.0 panics while remapping the MemWAL system index,
 *     which has no fields ("An index existed with no fields"), and the panic aborts the JVM
 * @param cleanup when present, lance-core's {@code Dataset.cleanupWithPolicy} removes old base table
 *     versions after the merges (and after file compaction), with this policy as given: on a table
 *     with tags it must say {@code withErrorIfTaggedOldVersions(false)}, or lance-core fails every
 *     cleanup once a tagged version is older than its cut
 * @param leaseDuration how long the table's compaction lease lasts between renewals (one before
 *     every commit); a compactor that finds it held by another refuses to run. Keep it well above
 *     a generation's merge time and the clock skew between the machines that compact the table
 * @param maxGenerationsPerRun at most this many generations are merged in one run over all shards
 *     (the shards take turns, one generation each, oldest first); {@link Integer#MAX_VALUE} for all.
 *     What is left waits for the next run
 * @param maxRunTime when present, a run starts no generation once this much time has passed since
 *     it began (checked between commits, so a run takes at most this plus one commit's merge; at
 *     least one commit's generations are merged). What is left waits for the next run
 * @param cleanupRetention when present (and {@code cleanup} is not), old base table versions are
 *     removed after the merges as {@code cleanup} would, keeping every version that was the latest
 *     at some moment within this retention plus {@code ShardWriterConfig.baseVersionMaxAge} of it (half the
 *     retention, at most 5 minutes): a checkpoint within the retention may reset a shard's rows to
 *     the version it builds on, which was the latest at most that age before the checkpoint (see
 *     docs/architecture.md, "Restores across merges"). At least the writing job's {@code
 *     sink.gc.retention}. Versions a tag names are kept, and other branches are left alone
 * @param maxGenerationsPerCommit at most this many generations, each of a different bucket's shard
 *     and together at most {@link #MAX_ROWS_PER_COMMIT} rows, are merged into the base table in one
 *     commit (default {@link #DEFAULT_MAX_GENERATIONS_PER_COMMIT}): a commit's fixed cost would
 *     otherwise be paid once per shard and checkpoint, which a table of hundreds of buckets cannot
 *     keep up with. Buckets hold disjoint keys, so their rows can be merged at once; a shard that is
 *     not a bucket's (an unsharded table's, or one named by an earlier release) merges alone. 1 merges
 *     every generation in a commit of its own
 */
@PublicEvolving
public record CompactorOptions(
        int maxGenerationsPerShard,
        Optional<CompactionOptions> fileCompaction,
        Optional<CleanupPolicy> cleanup,
        Duration leaseDuration,
        int maxGenerationsPerRun,
        Optional<Duration> maxRunTime,
        Optional<Duration> cleanupRetention,
        int maxGenerationsPerCommit) {
    public static final Duration DEFAULT_LEASE_DURATION = CompactionLease.DEFAULT_DURATION;
    public static final int DEFAULT_MAX_GENERATIONS_PER_COMMIT = 64;
    /** More rows than this are not added to a commit that merges several generations. */
    public static final long MAX_ROWS_PER_COMMIT = 1_000_000;

    public CompactorOptions {
        if (maxGenerationsPerShard < 1) {
            throw new IllegalArgumentException(
                    "maxGenerationsPerShard must be positive, was " + maxGenerationsPerShard);
        }
        fileCompaction = fileCompaction == null ? Optional.empty() : fileCompaction;
        fileCompaction.ifPresent(c -> {
            if (!c.getDeferIndexRemap().orElse(false)) {
                throw new IllegalArgumentException("file compaction must defer index remapping "
                        + "(CompactionOptions.builder().withDeferIndexRemap(true)): lance-core 7.0.0 aborts the JVM "
                        + "remapping the MemWAL index of the table (\"An index existed with no fields\")");
            }
        });
        cleanup = cleanup == null ? Optional.empty() : cleanup;
        leaseDuration = leaseDuration == null ? DEFAULT_LEASE_DURATION : leaseDuration;
        if (leaseDuration.toMillis() < 1000) {
            throw new IllegalArgumentException("leaseDuration must be at least 1 s, was " + leaseDuration);
        }
        if (maxGenerationsPerRun < 1) {
            throw new IllegalArgumentException("maxGenerationsPerRun must be positive, was " + maxGenerationsPerRun);
        }
        maxRunTime = maxRunTime == null ? Optional.empty() : maxRunTime;
        maxRunTime.ifPresent(t -> {
            if (t.isNegative() || t.isZero()) {
                throw new IllegalArgumentException("maxRunTime must be positive, was " + t);
            }
        });
        cleanupRetention = cleanupRetention == null ? Optional.empty() : cleanupRetention;
        cleanupRetention.ifPresent(t -> {
            if (t.isNegative()) {
                throw new IllegalArgumentException("cleanupRetention must not be negative, was " + t);
            }
        });
        if (maxGenerationsPerCommit < 1) {
            throw new IllegalArgumentException(
                    "maxGenerationsPerCommit must be positive, was " + maxGenerationsPerCommit);
        }
    }

    /** Merge everything; no file compaction, no cleanup. */
    public static CompactorOptions defaults() {
        return builder().build();
    }

    /** Options starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        return new Builder()
                .maxGenerationsPerShard(maxGenerationsPerShard)
                .fileCompaction(fileCompaction.orElse(null))
                .cleanup(cleanup.orElse(null))
                .leaseDuration(leaseDuration)
                .maxGenerationsPerRun(maxGenerationsPerRun)
                .maxRunTime(maxRunTime.orElse(null))
                .cleanupRetention(cleanupRetention.orElse(null))
                .maxGenerationsPerCommit(maxGenerationsPerCommit);
    }

    public CompactorOptions withMaxGenerationsPerShard(int max) {
        return toBuilder().maxGenerationsPerShard(max).build();
    }

    public CompactorOptions withFileCompaction(CompactionOptions options) {
        return toBuilder().fileCompaction(options).build();
    }

    public CompactorOptions withCleanup(CleanupPolicy policy) {
        return toBuilder().cleanup(policy).build();
    }

    public CompactorOptions withLeaseDuration(Duration duration) {
        return toBuilder().leaseDuration(duration).build();
    }

    public CompactorOptions withMaxGenerationsPerRun(int max) {
        return toBuilder().maxGenerationsPerRun(max).build();
    }

    public CompactorOptions withCleanupRetention(Duration retention) {
        return toBuilder().cleanupRetention(retention).build();
    }

    public CompactorOptions withMaxRunTime(Duration time) {
        return toBuilder().maxRunTime(time).build();
    }

    public CompactorOptions withMaxGenerationsPerCommit(int max) {
        return toBuilder().maxGenerationsPerCommit(max).build();
    }

    /**
     * Collects {@link CompactorOptions} one setting at a time, from the defaults; {@link #build()}
     * checks them together, as the record does. A null leaves an optional setting unset.
     */
    @PublicEvolving
    public static final class Builder {
        private int maxGenerationsPerShard = Integer.MAX_VALUE;
        private CompactionOptions fileCompaction;
        private CleanupPolicy cleanup;
        private Duration leaseDuration = DEFAULT_LEASE_DURATION;
        private int maxGenerationsPerRun = Integer.MAX_VALUE;
        private Duration maxRunTime;
        private Duration cleanupRetention;
        private int maxGenerationsPerCommit = DEFAULT_MAX_GENERATIONS_PER_COMMIT;

        private Builder() {}

        /** At most {@code max} generations per shard in one run, the oldest. */
        public Builder maxGenerationsPerShard(int max) {
            this.maxGenerationsPerShard = max;
            return this;
        }

        /** lance-core's file compaction after the merges; it must defer index remapping. */
        public Builder fileCompaction(CompactionOptions options) {
            this.fileCompaction = options;
            return this;
        }

        /** lance-core's cleanup of old base table versions after the merges, with this policy. */
        public Builder cleanup(CleanupPolicy policy) {
            this.cleanup = policy;
            return this;
        }

        public Builder leaseDuration(Duration duration) {
            this.leaseDuration = duration;
            return this;
        }

        /** At most {@code max} generations per run over all shards, which take turns. */
        public Builder maxGenerationsPerRun(int max) {
            this.maxGenerationsPerRun = max;
            return this;
        }

        /** No generation is started once a run has taken {@code time}. */
        public Builder maxRunTime(Duration time) {
            this.maxRunTime = time;
            return this;
        }

        /**
         * Removes, after the merges, base table versions superseded more than {@code retention}
         * plus half of it (at most 5 minutes) ago; tagged versions stay.
         */
        public Builder cleanupRetention(Duration retention) {
            this.cleanupRetention = retention;
            return this;
        }

        /** At most {@code max} generations (of different buckets' shards) per base table commit. */
        public Builder maxGenerationsPerCommit(int max) {
            this.maxGenerationsPerCommit = max;
            return this;
        }

        /** @throws IllegalArgumentException naming the first setting out of its range */
        public CompactorOptions build() {
            return new CompactorOptions(
                    maxGenerationsPerShard,
                    Optional.ofNullable(fileCompaction),
                    Optional.ofNullable(cleanup),
                    leaseDuration,
                    maxGenerationsPerRun,
                    Optional.ofNullable(maxRunTime),
                    Optional.ofNullable(cleanupRetention),
                    maxGenerationsPerCommit);
        }
    }
}
