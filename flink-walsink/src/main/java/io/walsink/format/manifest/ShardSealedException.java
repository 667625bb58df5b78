package io.walsink.format.manifest;

import io.walsink.annotation.Internal;

/** The shard's latest manifest is SEALED: it accepts no writer, now or later. */
@Internal
public class ShardSealedException extends ShardClaimException {
    public ShardSealedException(String location) {
        super(location, "shard is SEALED and refuses writer claims");
    }
}
