package io.walsink.storage;

import io.walsink.annotation.Internal;

/**
 * A transient failure of a write whose request may have reached the server (a timeout or an I/O
 * error after sending, a 5xx answer, a lost acknowledgement): the object may or may not have been
 * written.
 *
 * <p>It is transient, so a retry layer may try again, but a retry of a put-if-absent that then
 * finds the key taken cannot tell our own earlier write from a peer's, and must report an
 * {@link AmbiguousWriteException} instead of success or "already exists" (see
 * {@link RetryingObjectStore}). Failures known to happen before anything was sent (connection
 * refused, unknown host, a conflict answer) are plain transient {@link StorageException}s.
 */
@Internal
public class OutcomeUnknownException extends StorageException {
    public OutcomeUnknownException(String location, String message, Throwable cause) {
        super(location, message, true, cause);
    }
}
