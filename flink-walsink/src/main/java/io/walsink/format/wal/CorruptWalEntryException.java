package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/** A WAL entry whose bytes or metadata cannot be decoded (truncated, corrupt, no writer epoch). */
@Internal
public class CorruptWalEntryException extends FormatException {
    public CorruptWalEntryException(String location, String message, Throwable cause) {
        super(location, message, cause);
    }
}
