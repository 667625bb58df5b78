package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * What a primary-key table does with a changelog row. UPDATE_BEFORE is skipped: in an upsert
 * table the UPDATE_AFTER that follows replaces the row by key, and deleting on UPDATE_BEFORE
 * would make the key briefly disappear for readers.
 */
@Internal
public enum ChangeAction {
    UPSERT,
    DELETE,
    SKIP;

    public static ChangeAction of(RowKind kind) {
        switch (kind) {
            case INSERT:
            case UPDATE_AFTER:
                return UPSERT;
            case DELETE:
                return DELETE;
            case UPDATE_BEFORE:
                return SKIP;
            default:
                throw new IllegalArgumentException("unknown row kind " + kind);
        }
    }

    public static ChangeAction of(RowData row) {
        return of(row.getRowKind());
    }

    public static ChangeAction of(Row row) {
        return of(row.getKind());
    }
}
