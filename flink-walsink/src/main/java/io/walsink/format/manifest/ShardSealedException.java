package io.walsink.format.manifest;

import io.walsink.annotation.PublicEvolving;

/** The shard's latest manifest is SEALED: it accepts no writer, now or later. */
@PublicEvolving
public class ShardSealedException extends ShardClaimException {
    public ShardSealedException(String location) {
        super(location, "shard is SEALED and refuses writer claims");
    }
}
