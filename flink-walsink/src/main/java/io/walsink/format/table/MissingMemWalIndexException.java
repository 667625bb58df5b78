package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** The table has no MemWAL index (system index {@code __lance_mem_wal}). */
@Internal
public class MissingMemWalIndexException extends FormatException {
    public MissingMemWalIndexException(String location, String message, Throwable cause) {
        super(location, message, cause);
    }
}
