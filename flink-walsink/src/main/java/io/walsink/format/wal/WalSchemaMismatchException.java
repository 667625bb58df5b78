package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** A WAL entry (or a batch to append) whose columns differ from the shard's storage schema. */
@Internal
public class WalSchemaMismatchException extends FormatException {
    private final String column;

    public WalSchemaMismatchException(String location, String column, String message) {
        super(location, "column '" + column + "': " + message, null);
        this.column = column;
    }

    /** The first column found to differ. */
    public String column() {
        return column;
    }
}
