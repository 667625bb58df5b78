package io.walsink.read.search;

import io.walsink.annotation.Internal;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Nearest-neighbour queries of one vector column, one after another, as a SQL {@code
 * VECTOR_SEARCH} asks them: each answered from the table's committed state, which is pinned again
 * at most once per refresh interval (before every query when it is zero). The base table and the
 * rows above it are read again only when the pinned snapshot changed, so queries between two
 * checkpoints of the writing job share one read of the rows above the base. Not thread-safe.
 */
@Internal
public final class VectorSearcher<R> implements AutoCloseable {
    private final SnapshotReader reader;
    private final String column;
    private final RowExtractor<R> extractor;
    private final long refreshNanos;
    private SnapshotVectors<R> current;
    private long pinnedAt;
    private long snapshotsRead;

    /**
     * @param extractor builds each answer's row from a batch of the table
     * @param refreshInterval how long a pinned snapshot answers queries before the table is checked
     *     for a newer one
     */
    public VectorSearcher(SnapshotReader reader, String column, RowExtractor<R> extractor, Duration refreshInterval) {
        this.reader = Objects.requireNonNull(reader, "reader");
        this.column = Objects.requireNonNull(column, "column");
        this.extractor = Objects.requireNonNull(extractor, "extractor");
        this.refreshNanos = refreshInterval.toNanos();
    }

    /**
     * The query's nearest live rows of the committed table, as {@link SnapshotSearch#nearest} gives
     * them, as of at most the refresh interval ago.
     */
    public List<Neighbour<R>> nearest(NearestQuery query) {
        long now = System.nanoTime();
        if (current == null || now - pinnedAt >= refreshNanos) {
            TableSnapshot latest = reader.pin(ReadMode.COMMITTED);
            pinnedAt = now;
            if (current == null || !latest.equals(current.snapshot())) {
                SnapshotVectors<R> next = SnapshotSearch.vectors(reader, latest, column, extractor);
                close();
                current = next;
                snapshotsRead++;
            }
        }
        return current.nearest(query);
    }

    /** How many snapshots were read (the base opened and the rows above it read). */
    public long snapshotsRead() {
        return snapshotsRead;
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
