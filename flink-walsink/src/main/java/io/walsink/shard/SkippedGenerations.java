package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.SsTable;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The generation numbers a claim passed over, one record a claim under {@code
 * _walsink/skipped/{shard}/}. A claim gives out numbers above every SSTable folder, so the
 * lineage it starts counts the numbers between its state's last generation and its first new one
 * as its own although another branch wrote them (a checkpoint's covered generation is one number).
 * Such a number must never be merged into the base table under that number afterwards: a restore
 * that publishes an SSTable whose number a claim skipped publishes a copy under a new number, so
 * the merge progress passing it always means rows foreign to the lineage that skipped it.
 *
 * <p>Numbers at or below the base table's merge progress are never merged again (the compactor
 * merges only above it), so a claim records only the numbers above the progress and forgets the
 * records the progress has passed.
 */
@Internal
public final class SkippedGenerations {
    private final ObjectStore store;

    public SkippedGenerations(ObjectStore store) {
        this.store = store;
    }

    /** The numbers {@code from..to} (inclusive) one claim passed over. */
    public record Range(long from, long to) {
        boolean contains(long generation) {
            return generation >= from && generation <= to;
        }
    }

    /**
     * Records that a claim of {@code shard} passed over {@code from..to} (nothing if empty), and
     * forgets the records at or below {@code mergedThrough}.
     */
    void claimed(UUID shard, long from, long to, long mergedThrough) {
        long first = Math.max(from, mergedThrough + 1);
        if (first <= to) {
            store.put(key(shard, first, to), new byte[0]);
        }
        for (Range r : read(shard)) {
            if (r.to() <= mergedThrough) {
                store.delete(key(shard, r.from(), r.to()));
            }
        }
    }

    /**
     * Forgets every record of {@code shard}: a table rollback claimed it above every number given
     * out, and no restorable state holds an SSTable under a number recorded before.
     */
    public void forget(UUID shard) {
        for (Range r : read(shard)) {
            store.delete(key(shard, r.from(), r.to()));
        }
    }

    /** Every recorded range of {@code shard}. */
    public List<Range> read(UUID shard) {
        String folder = TableLayout.skippedGenerationsFolder(shard);
        List<Range> ranges = new ArrayList<>();
        for (ObjectMeta meta : store.listAll(folder)) {
            String[] fromTo = meta.key().substring(folder.length()).split("-", -1);
            if (fromTo.length != 2) {
                continue; // a temporary file of an interrupted put
            }
            OptionalLong from = TableLayout.parseSequenceName(fromTo[0]);
            OptionalLong to = TableLayout.parseSequenceName(fromTo[1]);
            if (from.isPresent() && to.isPresent()) {
                ranges.add(new Range(from.getAsLong(), to.getAsLong()));
            }
        }
        return ranges;
    }

    /** Whether some claim passed over the generation of one of {@code sstables}. */
    public static boolean anySkipped(List<Range> ranges, List<SsTable> sstables) {
        return sstables.stream().anyMatch(t -> ranges.stream().anyMatch(r -> r.contains(t.generation())));
    }

    private static String key(UUID shard, long from, long to) {
        return TableLayout.skippedGenerationsFolder(shard) + TableLayout.sequenceName(from) + "-"
                + TableLayout.sequenceName(to);
    }
}
