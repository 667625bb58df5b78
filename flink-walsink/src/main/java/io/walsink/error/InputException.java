package io.walsink.error;

import io.walsink.annotation.PublicEvolving;

/**
 * What the caller gave does not fit the table: a row, a value, a column type, a schema, a key.
 * Most are raised while a job is built, before any shard is claimed; those about one row are
 * raised before the row reaches the memtable or the WAL. Retrying the same input cannot help.
 */
@PublicEvolving
public class InputException extends WalSinkException {

    private static final long serialVersionUID = 1L;

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }

    public InputException(String message) {
        super(message);
    }
}
