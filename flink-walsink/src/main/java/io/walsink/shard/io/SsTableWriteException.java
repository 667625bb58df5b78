package io.walsink.shard.io;

import io.walsink.annotation.Internal;

/**
 * Writing an SSTable failed. The location names the SSTable folder, which may hold a partial
 * dataset: it is never published, so readers ignore it, and the engine poisons on this error.
 */
@Internal
public class SsTableWriteException extends ShardException {
    private final String location;

    public SsTableWriteException(String location, String message, Throwable cause) {
        super(location + ": " + message, cause);
        this.location = location;
    }

    /** The SSTable folder, as a user would write it. */
    public String location() {
        return location;
    }
}
