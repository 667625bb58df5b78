package io.walsink.storage;

import io.walsink.annotation.Internal;

/**
 * A put whose outcome is unknown: it may or may not have landed (a lost acknowledgement, or a
 * retry that found the key taken after an attempt that may have written it). Callers must not
 * guess; for a WAL slot this poisons the writer.
 */
@Internal
public class AmbiguousWriteException extends StorageException {
    public AmbiguousWriteException(String location, String message, Throwable cause) {
        super(location, message, false, cause);
    }
}
