package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;

/**
 * A restore's reset of one shard's rows in the base table, begun and not yet finished:
 * {@code _walsink/restores/{shard}} holding the restoring writer's epoch and the base version it
 * resets to. Written before the reset's first side effect (a base-table commit, a merge-journal
 * removal, an SSTable copy) and removed only once the restored manifest is durable. While it exists,
 * the base table may hold any mixture of the shard's rows, so every restore of the shard resets
 * them, whichever checkpoint it restores; a reset ends the same whatever it starts from.
 */
@Internal
public final class RestoreIntent {
    private final ObjectStore store;

    public RestoreIntent(ObjectStore store) {
        this.store = store;
    }

    /** An unfinished reset: by the writer of {@code epoch}, to base version {@code baseVersion}. */
    public record Unfinished(long epoch, long baseVersion) {}

    /** Records that the writer of {@code epoch} starts resetting the shard's rows to {@code baseVersion}. */
    public void begin(UUID shard, long epoch, long baseVersion) {
        store.put(key(shard), ("epoch=" + epoch + "\nbase=" + baseVersion + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The unfinished reset of {@code shard}, if any. */
    public Optional<Unfinished> read(UUID shard) {
        String text;
        try {
            text = new String(store.get(key(shard)), StandardCharsets.UTF_8);
        } catch (ObjectNotFoundException e) {
            return Optional.empty();
        }
        long epoch = -1;
        long base = -1;
        for (String line : text.split("\n")) {
            if (line.startsWith("epoch=")) {
                epoch = parse(shard, line.substring(6));
            } else if (line.startsWith("base=")) {
                base = parse(shard, line.substring(5));
            }
        }
        if (epoch < 0 || base < 0) {
            throw new FormatException(key(shard), "a restore intent must name an epoch and a base version", null);
        }
        return Optional.of(new Unfinished(epoch, base));
    }

    /** The reset and the manifest publishing its result are durable: no later restore needs to reset for it. */
    public void finish(UUID shard) {
        store.delete(key(shard));
    }

    private static long parse(UUID shard, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new FormatException(key(shard), "not a number in a restore intent: " + value, e);
        }
    }

    static String key(UUID shard) {
        return TableLayout.restoreIntentKey(shard);
    }
}
