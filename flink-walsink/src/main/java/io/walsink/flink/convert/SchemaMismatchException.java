package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;

/** The Flink row type and the Arrow table schema disagree about a column; raised at build time. */
@Internal
public final class SchemaMismatchException extends InputException {

    private static final long serialVersionUID = 1L;

    public SchemaMismatchException(String column, String problem) {
        super("column '" + column + "': " + problem);
    }
}
