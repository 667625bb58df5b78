package io.walsink.shard.io;

import io.walsink.annotation.Internal;

/**
 * The first terminal failure of a shard writer, latched: every later call on the writer fails
 * with it, and the only way back is a new open (new epoch, replay).
 */
@Internal
public class ShardPoisonedException extends ShardException {

    /** Why the writer stopped for good. */
    public enum Reason {
        /** A peer claimed a higher epoch; this writer must not write anything more. */
        FENCED,
        /** Retries of a WAL append or manifest write were exhausted, or failed permanently. */
        PERSISTENCE_FAILURE,
        /** A WAL put whose outcome is unknown: the slot may hold our entry or a peer's. */
        AMBIGUOUS_APPEND,
        /** Writing or publishing an SSTable failed; the frozen memtable is kept. */
        FLUSH_FAILED
    }

    private final String shard;
    private final Reason reason;

    public ShardPoisonedException(String shard, Reason reason, String message, Throwable cause) {
        super("shard " + shard + " poisoned (" + reason + "): " + message, cause);
        this.shard = shard;
        this.reason = reason;
    }

    public String shard() {
        return shard;
    }

    public Reason reason() {
        return reason;
    }
}
