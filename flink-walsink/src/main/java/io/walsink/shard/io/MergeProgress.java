package io.walsink.shard.io;

import io.walsink.annotation.Internal;

/**
 * A shard's merge progress as one version of the base table records it.
 *
 * @param baseVersion the base table version it was read from (0: not read, as after a failed read)
 * @param mergedThrough the shard's highest generation merged into that version (0: none)
 * @param readStartedNanos when the read of that version began (System.nanoTime): the version was
 *     the latest at some moment since, which is what the base-table cleanup keeps versions by
 */
@Internal
public record MergeProgress(long baseVersion, long mergedThrough, long readStartedNanos) {
    public static final MergeProgress UNKNOWN = new MergeProgress(0, 0, 0);

    public boolean known() {
        return baseVersion > 0;
    }
}
