package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;

/**
 * A writer may not take ownership of a shard; retrying the same claim will not help. The
 * {@link #location() location} is the manifest object that decided the refusal.
 */
@Internal
public class ShardClaimException extends FormatException {
    public ShardClaimException(String location, String message) {
        super(location, message, null);
    }
}
