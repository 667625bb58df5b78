package io.walsink.table.stream;

import io.walsink.format.wal.WalStorageSchema;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.table.scan.ProjectedRowExtractor;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * A row of a generation's SSTable as a change: the newest row of its key in that generation, so
 * for a keyed table an upsert (+U) or, when it is a tombstone, a delete (-D); for an append-only
 * table an insert. Downstream, +U without -U is what Flink calls an upsert changelog.
 */
final class ChangeRowExtractor implements RowExtractor<RowData> {
    private final ProjectedRowExtractor values;
    private final boolean keyed;

    ChangeRowExtractor(List<String> columns, boolean keyed) {
        this.values = new ProjectedRowExtractor(columns);
        this.keyed = keyed;
    }

    @Override
    public RowData extract(VectorSchemaRoot batch, int row) {
        FieldVector tombstones = batch.getVector(WalStorageSchema.TOMBSTONE);
        boolean deleted = tombstones instanceof BitVector bits && !bits.isNull(row) && bits.get(row) == 1;
        RowData data = values.extract(batch, row);
        data.setRowKind(keyed ? (deleted ? RowKind.DELETE : RowKind.UPDATE_AFTER) : RowKind.INSERT);
        return data;
    }
}
