package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import io.walsink.error.InputException;

/**
 * A column whose type has no counterpart on the other side (Flink ↔ Arrow). Raised while a
 * converter is built, never per row, so a job fails before it claims a shard.
 */
@Internal
public final class UnsupportedColumnTypeException extends InputException {

    private static final long serialVersionUID = 1L;

    public UnsupportedColumnTypeException(String column, Object type, String reason) {
        super("column '" + column + "' has type " + type + ", which is not supported: " + reason);
    }
}
