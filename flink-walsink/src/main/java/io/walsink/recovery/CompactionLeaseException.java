package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * A compactor run refused, or stopped between two commits, because another compactor holds the
 * table's compaction lease: two compactors interleaving the commits of consecutive generations
 * could apply an older generation's deletes after a newer generation's upserts. Nothing of the
 * refused run was committed after the refusal; run it again once the other one has ended.
 */
@Internal
public class CompactionLeaseException extends FormatException {
    private static final long serialVersionUID = 1L;

    public CompactionLeaseException(String location, String message) {
        super(location, message, null);
    }
}
