package io.walsink.format.manifest;

import io.walsink.annotation.Internal;

/**
 * Another writer claimed the shard with an epoch at least as high as the one we tried. Claiming
 * again would start an epoch war where two writers fence each other forever; the caller backs off.
 */
@Internal
public class EpochConflictException extends ShardClaimException {
    private final long attemptedEpoch;
    private final long storedEpoch;

    public EpochConflictException(String location, long attemptedEpoch, long storedEpoch) {
        super(location, "claim for writer epoch " + attemptedEpoch + " lost: stored epoch is " + storedEpoch);
        this.attemptedEpoch = attemptedEpoch;
        this.storedEpoch = storedEpoch;
    }

    public long attemptedEpoch() {
        return attemptedEpoch;
    }

    public long storedEpoch() {
        return storedEpoch;
    }
}
