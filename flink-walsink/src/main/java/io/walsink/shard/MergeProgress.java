package io.walsink.shard;

import io.walsink.annotation.Internal;

/**
 * A shard's merge progress as one version of the base table records it.
 *
 * @param baseVersion the base table version it was read from (0: not read, as after a failed read)
 * @param mergedThrough the shard's highest generation merged into that version (0: none)
 */
@Internal
public record MergeProgress(long baseVersion, long mergedThrough) {
    public static final MergeProgress UNKNOWN = new MergeProgress(0, 0);

    public boolean known() {
        return baseVersion > 0;
    }
}
