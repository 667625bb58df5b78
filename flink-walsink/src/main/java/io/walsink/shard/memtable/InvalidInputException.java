package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;

/**
 * Rows that do not fit the table: refused before they touch the memtable or the WAL, because a
 * bad row that reached the WAL would fail every replay after it.
 */
@Internal
public class InvalidInputException extends InputException {
    private final String column;

    public InvalidInputException(String column, String message) {
        super(column == null ? message : "column '" + column + "': " + message);
        this.column = column;
    }

    /** The offending column, or null when the problem is not about one column. */
    public String column() {
        return column;
    }
}
