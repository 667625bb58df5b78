package io.walsink.format;

import io.walsink.annotation.PublicEvolving;
import io.walsink.error.WalSinkException;

/**
 * Bytes or a folder that do not follow the MemWAL format, or a step the format's rules refuse (a
 * shard claim, a manifest version a peer created first). The location names the object (or
 * folder) at fault, so an operator can find it. The format branch of {@link WalSinkException}.
 */
@PublicEvolving
public class FormatException extends WalSinkException {
    private final String location;

    public FormatException(String location, String message, Throwable cause) {
        super(location + ": " + message, cause);
        this.location = location;
    }

    /** The object or folder the problem is about, as a user would write it. */
    public String location() {
        return location;
    }
}
