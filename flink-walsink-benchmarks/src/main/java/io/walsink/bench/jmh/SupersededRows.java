package io.walsink.bench.jmh;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.shard.memtable.Memtable;
import java.util.List;
import java.util.StringJoiner;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A lance-core delete predicate that removes the superseded rows of a memtable written whole as
 * fragment 0 (where {@code _rowaddr} is the row's position). lance-core's Java API cannot attach
 * a deletion vector to a new fragment directly; {@code Dataset.delete} with this predicate writes
 * one, in a second commit. The shorter of the two row lists is spelled out.
 */
final class SupersededRows {
    private SupersededRows() {}

    static String deletePredicate(Memtable frozen, PrimaryKeyEncoder keys) {
        StringJoiner superseded = new StringJoiner(", ", "_rowaddr IN (", ")");
        StringJoiner newest = new StringJoiner(", ", "_rowaddr NOT IN (", ")");
        int supersededCount = 0;
        KeyBuffer key = new KeyBuffer();
        List<VectorSchemaRoot> batches = frozen.sealedBatches();
        for (int b = 0; b < batches.size(); b++) {
            VectorSchemaRoot batch = batches.get(b);
            FieldVector[] keyColumns = keys.keyColumns(batch);
            long first = frozen.batchStartRow(b);
            for (int r = 0; r < batch.getRowCount(); r++) {
                keys.encode(keyColumns, r, key);
                long position = first + r;
                if (frozen.isNewest(position, key.array(), key.length())) {
                    newest.add(Long.toString(position));
                } else {
                    superseded.add(Long.toString(position));
                    supersededCount++;
                }
            }
        }
        if (supersededCount == 0) {
            return null;
        }
        return supersededCount * 2 <= frozen.rows() ? superseded.toString() : newest.toString();
    }
}
