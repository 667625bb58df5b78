package io.walsink.shard;

import io.walsink.annotation.Internal;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Keeps the base version a checkpoint records for idle shards young. A shard's descriptor records
 * the base table version its SSTable list was cut by, read at each publication; a shard that
 * publishes nothing for long would record a version that the base table's cleanup may remove
 * (it keeps the versions that were the latest within the retention), and a restore that must reset
 * the shard's rows to it would fail. Any later version read before the snapshot serves as well, so
 * one read of the latest version serves every stale shard of a subtask.
 */
@Internal
public final class BaseVersionRefresh {
    private BaseVersionRefresh() {}

    /**
     * Before a snapshot: one read of the latest base version for the writers whose base version was
     * read more than {@link ShardWriterConfig#baseVersionMaxAge()} ago; none when no writer is stale.
     *
     * @return how many writers took the newer version's read
     */
    public static int refreshStale(TableContext ctx, Collection<ShardWriter> writers) {
        Duration maxAge = ctx.config().baseVersionMaxAge();
        long started = System.nanoTime();
        List<ShardWriter> stale = writers.stream()
                .filter(w -> started - w.checkpoint().baseVersionReadAtNanos() > maxAge.toNanos())
                .toList();
        if (stale.isEmpty()) {
            return 0;
        }
        long version = ctx.latestBaseVersion();
        if (version == 0) {
            return 0; // logged; the next snapshot tries again
        }
        stale.forEach(w -> w.checkpoint().newerBaseVersion(version, started));
        return stale.size();
    }
}
