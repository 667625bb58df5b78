package io.walsink.format.manifest;

/** A writer may not take ownership of a shard; retrying the same claim will not help. */
public class ShardClaimException extends RuntimeException {
    private final String location;

    public ShardClaimException(String location, String message) {
        super(location + ": " + message);
        this.location = location;
    }

    /** The manifest object that decided the refusal. */
    public String location() {
        return location;
    }
}
