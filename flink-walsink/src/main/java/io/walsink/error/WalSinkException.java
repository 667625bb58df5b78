package io.walsink.error;

import io.walsink.annotation.PublicEvolving;

/**
 * The root of every exception walsink throws on purpose. It has four branches, one per kind of
 * failure, and a caller picks the branch it can act on:
 *
 * <ul>
 *   <li>{@link InputException}: what the caller gave does not fit (a row, a column type, a
 *       schema, a key); fix the input, retrying cannot help.
 *   <li>{@code io.walsink.storage.StorageException}: an object-store operation failed;
 *       {@code isTransient()} says whether trying again may help.
 *   <li>{@code io.walsink.format.FormatException}: the table's objects do not follow the MemWAL
 *       format (no table, corrupt or unsafe objects), or its rules refuse a step (a lost claim).
 *   <li>{@code io.walsink.shard.io.ShardException}: a shard writer stopped; the way back is a new
 *       open (Flink restarts the task).
 * </ul>
 *
 * <p>Failed preconditions on arguments (a negative size, an empty path) stay the JDK's
 * {@link IllegalArgumentException} and {@link IllegalStateException}. This package sits below
 * every layer and imports nothing of walsink or Flink, so each layer can extend it.
 */
@PublicEvolving
public abstract class WalSinkException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected WalSinkException(String message, Throwable cause) {
        super(message, cause);
    }

    protected WalSinkException(String message) {
        super(message);
    }
}
