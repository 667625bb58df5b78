package io.walsink.read.scan;

import io.walsink.annotation.Internal;
import java.io.Serializable;

/**
 * Where a read of a {@link SnapshotPart} stands, exact within its pinned snapshot: the base
 * fragment being scanned (an index into the part's fragments) and the rows of it already consumed
 * (emitted or skipped), or, once {@code fragment} is past the last one, the unmerged part's live
 * rows already emitted. A restore seeks the fragment scan to {@code row} instead of reading the
 * part again from its start.
 *
 * @param fragment index into the part's base fragments; their count means "in the unmerged part"
 * @param row rows consumed in that fragment (or emitted of the unmerged part)
 * @param emitted rows emitted by the part so far, for a per-split limit
 */
@Internal
public record ScanPosition(int fragment, long row, long emitted) implements Serializable {
    public static final ScanPosition START = new ScanPosition(0, 0, 0);

    public ScanPosition {
        if (fragment < 0 || row < 0 || emitted < 0) {
            throw new IllegalArgumentException(
                    "invalid scan position: fragment " + fragment + ", row " + row + ", emitted " + emitted);
        }
    }
}
