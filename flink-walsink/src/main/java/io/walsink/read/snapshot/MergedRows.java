package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.ColumnsAddedLater;
import io.walsink.format.FormatException;
import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.wal.WalStorageSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Last-write-wins merge of batches applied oldest first (base, SSTables by generation, WAL by
 * position; rows within a batch in order), so a later row of a key simply replaces the earlier
 * one. A key whose newest row is a tombstone is dropped at the end. Append-only tables keep
 * every row in the order applied.
 */
@Internal
public final class MergedRows<R> {
    private final List<Field> columns;
    private final RowExtractor<R> extractor;
    private final PrimaryKeyEncoder keys; // null: append-only
    private final KeyBuffer key = new KeyBuffer();
    private NewerKeys probed; // the keys of newest as a hash set, built at the first probe after the last apply
    // Optional.empty() marks a key whose newest row is a tombstone.
    private final TreeMap<byte[], Optional<R>> newest = new TreeMap<>(Arrays::compareUnsigned);
    private final List<R> appended = new ArrayList<>();
    /** Null, or the one key kept: a lookup's scans may return other rows (a filter lance-core cannot apply). */
    private final KeyBuffer only;

    public MergedRows(TableColumns layout, RowExtractor<R> extractor) {
        this(layout, extractor, null);
    }

    /** Keeps the rows of key {@code only} alone (every key when it is null). */
    public MergedRows(TableColumns layout, RowExtractor<R> extractor, KeyBuffer only) {
        this.columns = layout.schema().getFields();
        this.extractor = extractor;
        this.keys = layout.primaryKey().isEmpty() ? null : new PrimaryKeyEncoder(layout.keyFields());
        this.only = only;
    }

    /** Applies every row of {@code batch}, read from {@code source} (named in errors). */
    public void apply(VectorSchemaRoot batch, String source) {
        apply(batch, source, null);
    }

    /** Applies the rows of {@code batch} in {@code selection} (all rows when it is null). */
    public void apply(VectorSchemaRoot batch, String source, BucketSelection selection) {
        try (ColumnsAddedLater view = ColumnsAddedLater.view(batch, columns, source)) {
            applyAll(view.root(), source, selection);
        }
    }

    private void applyAll(VectorSchemaRoot batch, String source, BucketSelection selection) {
        FieldVector tombstones = batch.getVector(WalStorageSchema.TOMBSTONE);
        BitVector tombstone = tombstones instanceof BitVector bits ? bits : null;
        FieldVector[] keyColumns = keyColumns(batch, source);
        BucketSelection.Assigner inBucket = selection == null ? null : selection.assigner(batch);
        for (int r = 0; r < batch.getRowCount(); r++) {
            if (inBucket != null && !inBucket.keeps(r)) {
                continue;
            }
            boolean deleted = tombstone != null && tombstone.get(r) == 1;
            if (keys == null) {
                if (!deleted) {
                    appended.add(extractor.extract(batch, r));
                }
                continue;
            }
            keys.encode(keyColumns, r, key);
            if (only != null && !only.equals(key)) {
                continue;
            }
            newest.put(key.toByteArray(), deleted ? Optional.empty() : Optional.of(extractor.extract(batch, r)));
            probed = null;
        }
    }

    /** Whether keys are merged (false for an append-only table, whose rows are all kept). */
    public boolean keyed() {
        return keys != null;
    }

    /** How many keys were applied (each counted once, live or a tombstone). */
    public int keyCount() {
        return newest.size();
    }

    /** Whether any key was applied (a row or a tombstone). */
    public boolean holdsAnyKey() {
        return !newest.isEmpty();
    }

    /** Whether a row (live or a tombstone) was applied for the key of row {@code row} of {@code keyColumns}. */
    public boolean holdsKeyOf(FieldVector[] keyColumns, int row) {
        if (probed == null) {
            probed = new NewerKeys(keys, newest.keySet());
        }
        return probed.contains(keyColumns, row);
    }

    public FieldVector[] keyColumns(VectorSchemaRoot batch, String source) {
        if (keys == null) {
            return null;
        }
        try {
            return keys.keyColumns(batch);
        } catch (IllegalArgumentException e) {
            throw new FormatException(source, e.getMessage(), e);
        }
    }

    /** The live rows: by primary-key bytes, or in the order applied for an append-only table. */
    public List<R> live() {
        if (keys == null) {
            return appended;
        }
        List<R> live = new ArrayList<>(newest.size());
        for (Optional<R> row : newest.values()) {
            row.ifPresent(live::add);
        }
        return live;
    }
}
