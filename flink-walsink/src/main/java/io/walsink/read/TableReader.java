package io.walsink.read;

import io.walsink.annotation.PublicEvolving;
import io.walsink.format.TableLayout;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.search.SnapshotSearch;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.S3Options;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Merge-on-read of a whole MemWAL table as of now: the base table (generation 0), then every
 * shard ({@link #shards}); newest wins per primary key, keys whose newest row is a tombstone are
 * absent, append-only tables return every row. SSTables already compacted into the base table are
 * skipped when lance-core reports them. Materializes the result: meant for tests, tools and small
 * tables.
 *
 * <p>Searches read only what they need of the same state: {@link #nearest} (the k nearest rows to a
 * vector, through the base table's vector index) and {@link #fullText} (the k best full-text
 * matches, through the maintained inverted indexes), each a key's newest row, deletes honoured.
 *
 * <pre>{@code
 * try (TableReader reader = TableReader.open("s3://bucket/tables/events", s3Options)) {
 *     List<Map<String, Object>> rows = reader.read(ReadMode.COMMITTED).rows();
 * }
 * }</pre>
 */
@PublicEvolving
public final class TableReader implements AutoCloseable {
    private final SnapshotReader snapshots;

    /** Over a store and an allocator the caller keeps and closes (walsink's tests). */
    TableReader(TableLocation location, WalSchemaProfile profile, BufferAllocator allocator) {
        this(new SnapshotReader(location, profile, allocator));
    }

    private TableReader(SnapshotReader snapshots) {
        this.snapshots = snapshots;
    }

    /** A reader of the local table at {@code path} ({@code file:///dir} or a directory). */
    public static TableReader open(String path) {
        return open(path, S3Options.defaults());
    }

    /** A reader of the table at {@code path}, local or {@code s3://bucket/prefix}, written with the spec profile. */
    public static TableReader open(String path, S3Options s3) {
        return open(path, s3, WalSchemaProfile.SPEC);
    }

    /**
     * A reader that opens its own object store (the same client and S3 settings as the sink) and
     * Arrow allocator, and closes both on {@link #close()}.
     *
     * @param profile the WAL schema profile the table's writers use (for {@link ReadMode#LATEST})
     */
    public static TableReader open(String path, S3Options s3, WalSchemaProfile profile) {
        return new TableReader(SnapshotReader.open(path, s3, profile));
    }

    /** Closes the store and allocator this reader opened itself. */
    @Override
    public void close() {
        snapshots.close();
    }

    /**
     * @throws io.walsink.format.table.TableNotFoundException if there is no Lance table at the URI
     * @throws io.walsink.format.FormatException (or a subtype: corrupt manifest, manifest gap,
     *     corrupt WAL entry, unsafe SSTable path) naming the object at fault
     * @throws io.walsink.storage.StorageException if storage fails; for lance-core's S3 I/O it
     *     names the dataset, the operation and the likely cause ({@link
     *     io.walsink.format.table.LanceFailures})
     */
    public TableRows read(ReadMode mode) {
        return snapshots.read(mode);
    }

    /**
     * Time travel: the table as base table version {@code version} holds it, the rows compaction
     * had merged by then (what LanceDB's {@code checkout(version)} reads with {@code useLsm(false)}).
     *
     * @throws IllegalArgumentException if the version is gone (cleaned up after {@code
     *     sink.gc.retention}) or never was, naming the versions the table holds
     */
    public TableRows readVersion(long version) {
        return snapshots.read(snapshots.pinVersion(version));
    }

    /** {@link #readVersion} of the version the base table's tag {@code tag} names. */
    public TableRows readTag(String tag) {
        return snapshots.read(snapshots.pinTag(tag));
    }

    /**
     * {@link #readVersion} of the version that was the latest at {@code at}: the highest-numbered
     * base table version committed at or before it.
     *
     * @throws IllegalArgumentException if {@code at} precedes every version the table holds, or the
     *     versions after the one found were cleaned up (so a newer one may have been current then)
     */
    public TableRows readAt(Instant at) {
        return snapshots.read(snapshots.pinTimestamp(at));
    }

    /**
     * The {@code query.k()} live rows nearest the query vector, as a {@link #read(ReadMode)} of the
     * same moment would hold them (newest row per key, deleted keys absent), each with its distance,
     * nearest first. The base table is searched by lance-core through its vector index on the column
     * when it has one (else exactly), the rows above it exactly.
     *
     * @throws IllegalArgumentException if the column is not a vector column of the table, or its
     *     dimension is not the query vector's
     */
    public List<Neighbour<Map<String, Object>>> nearest(ReadMode mode, NearestQuery query) {
        return SnapshotSearch.nearest(snapshots, snapshots.pin(mode), query, null);
    }

    /**
     * The {@code query.k()} live rows of the committed table that best match the query text, best
     * first, each with its BM25 score: every dataset (the base table, each published SSTable above
     * it) searched through its own full-text index, a key's answer being its newest row, and only
     * if that row matches (deleted keys have none).
     *
     * @throws IllegalArgumentException if the table maintains no full-text ({@code INVERTED}) index
     *     on the column
     */
    public List<TextHit<Map<String, Object>>> fullText(TextQuery query) {
        return SnapshotSearch.fullText(snapshots, snapshots.pin(ReadMode.COMMITTED), query, null);
    }

    /**
     * The table's shards, by UUID order: the folders under {@code _mem_wal/} holding a manifest
     * version (a folder without one has nothing to read; see {@link TableLayout}).
     */
    public Set<UUID> shards() {
        return snapshots.shards();
    }
}
