package io.walsink.storage;

import io.walsink.annotation.PublicEvolving;
import io.walsink.error.WalSinkException;

/**
 * A failed object-store operation. {@link #isTransient()} tells a retry policy whether trying the
 * same call again may succeed (throttling, server errors, timeouts) or cannot (bad credentials,
 * missing bucket, malformed request). The storage branch of {@link WalSinkException}.
 */
@PublicEvolving
public class StorageException extends WalSinkException {
    private final String location;
    private final boolean transientFailure;

    public StorageException(String location, String message, boolean transientFailure, Throwable cause) {
        super(location + ": " + message, cause);
        this.location = location;
        this.transientFailure = transientFailure;
    }

    public StorageException(String location, String message, boolean transientFailure) {
        this(location, message, transientFailure, null);
    }

    /** The object (or store) the failure is about, as a user would write it. */
    public String location() {
        return location;
    }

    public boolean isTransient() {
        return transientFailure;
    }
}
