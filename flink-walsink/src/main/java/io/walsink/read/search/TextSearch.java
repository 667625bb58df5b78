package io.walsink.read.search;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.TextHit;
import io.walsink.read.TextQuery;
import io.walsink.read.snapshot.DatasetBatches;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.TableColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;
import org.lance.ipc.FullTextQuery;
import org.lance.ipc.ScanOptions;

/**
 * The {@code k} best full-text matches among one snapshot's live rows. Every dataset is searched
 * through its own inverted index (the base table's, and each SSTable's, which walsink builds before
 * publishing it), oldest first: the base table, then per shard its SSTables by generation. Before a
 * generation's matches are added, every key the generation holds (rows and tombstones) removes the
 * older matches of that key, so a key's answer is its newest row, and only if that row matches; a
 * deleted key has none. The base table is asked for {@code k} plus every key above it, so that
 * {@code k} of its answers survive whenever it has them.
 */
final class TextSearch<R> {
    private static final String SCORE = "_score";

    private final TableLocation location;
    private final String tableUri;
    private final TableColumns layout;
    private final TextQuery query;
    private final RowExtractor<R> extractor;
    private final PrimaryKeyEncoder keys; // null: append-only, no key shadows another
    private final KeyBuffer key = new KeyBuffer();
    // Matches by key, newest dataset last applied; for an append-only table, in the order found.
    private final TreeMap<byte[], TextHit<R>> byKey = new TreeMap<>(Arrays::compareUnsigned);
    private final List<TextHit<R>> appended = new ArrayList<>();

    TextSearch(TableLocation location, TableColumns layout, TextQuery query, RowExtractor<R> extractor) {
        this.location = location;
        this.tableUri = location.uri();
        this.layout = layout;
        this.query = query;
        this.extractor = extractor;
        this.keys = layout.primaryKey().isEmpty() ? null : new PrimaryKeyEncoder(layout.keyFields());
    }

    /** The keys (rows and tombstones) of one dataset above the base table. */
    List<byte[]> keysOf(Dataset sstable, String uri) {
        List<byte[]> found = new ArrayList<>();
        if (keys == null) {
            return found;
        }
        ScanOptions options =
                new ScanOptions.Builder().columns(layout.primaryKey()).build();
        DatasetBatches.forEach(sstable, uri, location, options, null, batch -> {
            FieldVector[] keyColumns = keyColumns(batch, uri);
            for (int r = 0; r < batch.getRowCount(); r++) {
                keys.encode(keyColumns, r, key);
                found.add(key.toByteArray());
            }
        });
        return found;
    }

    /** Adds the base table's best {@code limit} matches (before anything above it). */
    void searchBase(Dataset base, long limit) {
        search(base, tableUri, limit);
    }

    /** Removes the older matches of {@code shadowing}'s keys, then adds {@code sstable}'s matches. */
    void searchAbove(Dataset sstable, String uri, List<byte[]> shadowing) {
        for (byte[] k : shadowing) {
            byKey.remove(k);
        }
        search(sstable, uri, 0);
    }

    /** The best {@code k} matches left, best first. */
    List<TextHit<R>> best() {
        List<TextHit<R>> all = new ArrayList<>(keys == null ? appended : byKey.values());
        all.sort(Comparator.comparingDouble((TextHit<R> h) -> h.score()).reversed());
        return List.copyOf(all.subList(0, Math.min(query.k(), all.size())));
    }

    private void search(Dataset ds, String uri, long limit) {
        List<String> columns = new ArrayList<>(layout.columns());
        boolean above =
                ds.getSchema().getFields().stream().anyMatch(f -> f.getName().equals(WalStorageSchema.TOMBSTONE));
        if (above) {
            columns.add(WalStorageSchema.TOMBSTONE);
        }
        ScanOptions.Builder options = new ScanOptions.Builder()
                .fullTextQuery(FullTextQuery.match(query.text(), query.column()))
                .columns(columns);
        if (limit > 0) {
            options.limit(limit);
        }
        DatasetBatches.forEach(ds, uri, location, options.build(), null, batch -> add(batch, uri));
    }

    private void add(VectorSchemaRoot batch, String uri) {
        Float4Vector score = (Float4Vector) batch.getVector(SCORE);
        FieldVector tombstones = batch.getVector(WalStorageSchema.TOMBSTONE);
        BitVector tombstone = tombstones instanceof BitVector bits ? bits : null;
        FieldVector[] keyColumns = keys == null ? null : keyColumns(batch, uri);
        for (int r = 0; r < batch.getRowCount(); r++) {
            if (tombstone != null && tombstone.get(r) == 1) {
                continue; // its key was removed above; a tombstone matches nothing
            }
            TextHit<R> hit = new TextHit<>(extractor.extract(batch, r), score.get(r));
            if (keys == null) {
                appended.add(hit);
            } else {
                keys.encode(keyColumns, r, key);
                byKey.put(key.toByteArray(), hit);
            }
        }
    }

    private FieldVector[] keyColumns(VectorSchemaRoot batch, String uri) {
        try {
            return keys.keyColumns(batch);
        } catch (IllegalArgumentException e) {
            throw new io.walsink.format.FormatException(uri, e.getMessage(), e);
        }
    }

    /** How many distinct keys {@code perGeneration} hold. */
    static long distinct(List<List<byte[]>> perGeneration) {
        TreeSet<byte[]> all = new TreeSet<>(Arrays::compareUnsigned);
        perGeneration.forEach(all::addAll);
        return all.size();
    }
}
