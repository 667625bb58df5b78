package io.walsink.format;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The durable facts of a table rollback (docs/architecture.md, "The restore protocol"):
 *
 * <ul>
 *   <li>the <em>intent</em>, {@code _walsink/rollback/intent}: the target base version and, per
 *       shard, the writer epoch seen before the rollback claimed it; written under the maintenance
 *       lease before the first claim, removed once the record below is durable. While it exists no
 *       writer opens and no restore runs; a rollback run again resumes it.
 *   <li>the <em>record</em>, {@code _walsink/rollback/done}: the target, the base version the
 *       rollback's Lance restore committed and, per shard, the epoch of the rollback's last claim.
 *       Epochs only rise, so the latest rollback's record speaks for all earlier ones: a state whose
 *       epoch is at or below the fenced one, or that builds on a base version below the new one, was
 *       taken before the rollback and is never restored.
 * </ul>
 */
@Internal
public final class RollbackRecords {
    private final ObjectStore store;

    public RollbackRecords(ObjectStore store) {
        this.store = store;
    }

    /**
     * A rollback to {@code target} begun at {@code startedMillis}; {@code epochs}: each shard's
     * epoch before its claim; {@code newBase}: the base version its Lance restore committed, -1
     * before.
     */
    public record Intent(long target, long startedMillis, Map<UUID, Long> epochs, long newBase) {
        public Intent {
            epochs = Map.copyOf(epochs);
        }

        /** This intent once its Lance restore committed base version {@code version}. */
        public Intent restoredAs(long version) {
            return new Intent(target, startedMillis, epochs, version);
        }
    }

    /** A finished rollback to {@code target}, committed as base version {@code newBase}; {@code fenced}: each shard's epoch then. */
    public record Done(long target, long newBase, long finishedMillis, Map<UUID, Long> fenced) {
        public Done {
            fenced = Map.copyOf(fenced);
        }

        public String describe() {
            return "rolled back to version " + target + " (as base version " + newBase + ") at "
                    + Instant.ofEpochMilli(finishedMillis);
        }
    }

    public void writeIntent(Intent intent) {
        store.put(
                TableLayout.ROLLBACK_INTENT,
                encode(intent.target(), intent.newBase(), intent.startedMillis(), intent.epochs()));
    }

    public Optional<Intent> readIntent() {
        return read(TableLayout.ROLLBACK_INTENT).map(f -> new Intent(f.target, f.millis, f.epochs, f.base));
    }

    public void removeIntent() {
        store.delete(TableLayout.ROLLBACK_INTENT);
    }

    public void writeDone(Done done) {
        store.put(
                TableLayout.ROLLBACK_RECORD,
                encode(done.target(), done.newBase(), done.finishedMillis(), done.fenced()));
    }

    public Optional<Done> readDone() {
        return read(TableLayout.ROLLBACK_RECORD).map(f -> new Done(f.target, f.base, f.millis, f.epochs));
    }

    /**
     * Fails while a rollback of the table is under way: a writer opening or a shard being restored
     * now would be fenced by it, or would build on the base table it is replacing.
     */
    public void requireNoneUnderWay(String table, UUID shard) {
        Optional<Intent> intent = readIntent();
        if (intent.isPresent()) {
            throw new IllegalStateException("shard " + shard + " of table " + table + " is not opened: a rollback"
                    + " of the table to version " + intent.get().target() + ", begun at "
                    + Instant.ofEpochMilli(intent.get().startedMillis()) + ", has not finished (run the rollback"
                    + " again to finish it)");
        }
    }

    /**
     * Fails, before anything is written, if a state of {@code shard} taken with writer epoch {@code
     * epoch} on base version {@code baseVersion} (0: unknown) predates the table's latest rollback,
     * or a rollback is under way.
     */
    public void requireRestorable(String table, UUID shard, long epoch, long baseVersion) {
        requireNoneUnderWay(table, shard);
        Optional<Done> done = readDone();
        if (done.isEmpty()) {
            return;
        }
        long fenced = done.get().fenced().getOrDefault(shard, 0L);
        boolean before =
                epoch <= fenced || (baseVersion > 0 && baseVersion < done.get().newBase());
        if (before) {
            throw new IllegalStateException("table " + table + " was "
                    + done.get().describe()
                    + "; this checkpoint was taken before (shard " + shard + ", epoch " + epoch + ", base version "
                    + baseVersion + "); start the job without its state");
        }
    }

    private record Fields(long target, long base, long millis, Map<UUID, Long> epochs) {}

    private static byte[] encode(long target, long base, long millis, Map<UUID, Long> epochs) {
        StringBuilder s = new StringBuilder();
        s.append("target=").append(target).append('\n');
        if (base >= 0) {
            s.append("base=").append(base).append('\n');
        }
        s.append("millis=").append(millis).append('\n');
        new TreeMap<>(epochs)
                .forEach((shard, e) ->
                        s.append("shard.").append(shard).append('=').append(e).append('\n'));
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Optional<Fields> read(String key) {
        String text;
        try {
            text = new String(store.get(key), StandardCharsets.UTF_8);
        } catch (ObjectNotFoundException e) {
            return Optional.empty();
        }
        long target = -1;
        long base = -1;
        long millis = -1;
        Map<UUID, Long> epochs = new TreeMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = line.substring(0, eq);
            long value = parse(key, line.substring(eq + 1));
            switch (name) {
                case "target" -> target = value;
                case "base" -> base = value;
                case "millis" -> millis = value;
                default -> {
                    if (!name.startsWith("shard.")) {
                        throw new FormatException(key, "unknown field '" + name + "' in a rollback record", null);
                    }
                    try {
                        epochs.put(UUID.fromString(name.substring(6)), value);
                    } catch (IllegalArgumentException e) {
                        throw new FormatException(key, "not a shard id in a rollback record: " + name, e);
                    }
                }
            }
        }
        if (target < 0 || millis < 0) {
            throw new FormatException(key, "a rollback record must name its target version and time", null);
        }
        return Optional.of(new Fields(target, base, millis, epochs));
    }

    private static long parse(String key, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new FormatException(key, "not a number in a rollback record: " + value, e);
        }
    }
}
