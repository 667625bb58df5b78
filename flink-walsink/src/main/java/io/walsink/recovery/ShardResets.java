package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;

/**
 * The resets of one shard's rows in the base table that restores make, as two records:
 *
 * <ul>
 *   <li>the <em>intent</em>, {@code _walsink/restores/{shard}}, holding the restoring writer's epoch
 *       and the base version it resets to: written before the reset's first side effect (a
 *       base-table commit, a merge-journal removal, an SSTable copy) and removed only once the
 *       restored manifest is durable. While it exists, the base table may hold any mixture of the
 *       shard's rows, so every restore of the shard resets them, whichever checkpoint it restores; a
 *       reset ends the same whatever it starts from.
 *   <li>the <em>last reset</em>, {@code _walsink/resets/{shard}}, holding the base version at which
 *       the latest reset's commits were done. A reset replaces the shard's rows without raising its
 *       merge progress (which only rises), so a checkpoint whose base version is older than the
 *       last reset builds on rows the base table no longer holds, whatever the progress says.
 * </ul>
 */
@Internal
public final class ShardResets {
    private final ObjectStore store;

    public ShardResets(ObjectStore store) {
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

    /** Records that a reset's commits are done as of base version {@code baseVersion} (kept if an earlier record is newer). */
    public void resetAt(UUID shard, long baseVersion) {
        if (baseVersion > lastResetAt(shard)) {
            store.put(
                    TableLayout.lastResetKey(shard), Long.toString(baseVersion).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The base version of the shard's latest reset; 0 if it was never reset. */
    public long lastResetAt(UUID shard) {
        try {
            return parse(shard, new String(store.get(TableLayout.lastResetKey(shard)), StandardCharsets.UTF_8));
        } catch (ObjectNotFoundException e) {
            return 0;
        }
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
