package io.walsink.shard.io;

import io.walsink.annotation.PublicEvolving;
import io.walsink.error.WalSinkException;

/**
 * A shard writer failed: it is poisoned ({@link ShardPoisonedException}), or one of its I/O tasks
 * failed ({@link SsTableWriteException}). Not meant to be caught by users: the writer stops and
 * Flink restarts the task, which opens the shard again with a new epoch.
 */
@PublicEvolving
public abstract class ShardException extends WalSinkException {

    private static final long serialVersionUID = 1L;

    protected ShardException(String message, Throwable cause) {
        super(message, cause);
    }
}
