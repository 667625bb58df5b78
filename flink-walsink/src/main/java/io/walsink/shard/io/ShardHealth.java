package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a shard writer may still be used: not once it is closed, and never again after its
 * first terminal failure, which every later call rethrows (the way back is a new open).
 */
@Internal
public final class ShardHealth {
    private static final Logger LOG =
            LoggerFactory.getLogger("io.walsink.shard.ShardWriter"); // the writer's log category

    private final UUID shardId;
    private ShardPoisonedException poison;
    private boolean closed;

    public ShardHealth(UUID shardId) {
        this.shardId = shardId;
    }

    /** @throws ShardPoisonedException the poison, if any; else IllegalStateException if closed */
    public void check() {
        if (poison != null) {
            throw poison;
        }
        if (closed) {
            throw new IllegalStateException("shard writer " + shardId + " is closed");
        }
    }

    /** Poisons the writer, unless it already is; returns the poison to throw (always the first). */
    public ShardPoisonedException poison(Reason reason, String message, Throwable cause) {
        if (poison == null) {
            poison = new ShardPoisonedException(shardId.toString(), reason, message, cause);
            LOG.error("Shard {} poisoned: {}", shardId, poison.getMessage(), cause);
        }
        return poison;
    }

    public Optional<ShardPoisonedException> poison() {
        return Optional.ofNullable(poison);
    }

    /** Marks the writer closed; whether it was open until now. */
    public boolean close() {
        boolean wasOpen = !closed;
        closed = true;
        return wasOpen;
    }
}
