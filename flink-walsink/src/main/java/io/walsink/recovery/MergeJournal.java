package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.SsTablePaths;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectNotFoundException;
import io.walsink.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The merges of a table's shards that a compactor started and has not seen marked merged:
 * {@code _walsink/merges/{shard}/{generation}} holding the SSTable's path, written before the
 * merge's first base-table commit and removed once the generation is marked merged.
 *
 * <p>A generation whose merge takes two commits (deletes, then upserts with the merge mark) may be
 * left half-merged by a compactor that dies between them: the base table then holds some of its
 * rows while its merge progress does not say so. A restore that rolls that generation back reads
 * this journal to find it, and resets the shard's rows in the base table.
 */
@Internal
public final class MergeJournal {
    private final ObjectStore store;

    public MergeJournal(ObjectStore store) {
        this.store = store;
    }

    /** A merge started and not seen marked. */
    public record Entry(long generation, String path) {}

    /** Records that the merge of {@code generation} ({@code path}) starts; a repeated start keeps the first record. */
    public void started(UUID shard, long generation, String path) {
        SsTablePaths.require(key(shard, generation), generation, path);
        if (!store.exists(key(shard, generation))) {
            store.put(key(shard, generation), path.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Forgets the merge of {@code generation}: it is marked merged, or a restore rolled its rows back. */
    public void finished(UUID shard, long generation) {
        store.delete(key(shard, generation));
    }

    /** Every recorded merge of {@code shard}, in generation order. */
    public List<Entry> entries(UUID shard) {
        List<Entry> entries = new ArrayList<>();
        String folder = folder(shard);
        for (ObjectMeta meta : store.listAll(folder)) {
            OptionalLong named = TableLayout.parseSequenceName(meta.key().substring(folder.length()));
            if (named.isEmpty()) {
                continue; // a temporary file of an interrupted put
            }
            long generation = named.getAsLong();
            try {
                String path = new String(store.get(meta.key()), StandardCharsets.UTF_8);
                SsTablePaths.require(meta.key(), generation, path);
                entries.add(new Entry(generation, path));
            } catch (ObjectNotFoundException gone) {
                // finished since the listing
            }
        }
        entries.sort((a, b) -> Long.compare(a.generation(), b.generation()));
        return entries;
    }

    /** Removes the records of generations at or below {@code mergedThrough} (a compactor died after marking them). */
    public int removeThrough(UUID shard, long mergedThrough) {
        int removed = 0;
        for (Entry e : entries(shard)) {
            if (e.generation() <= mergedThrough) {
                finished(shard, e.generation());
                removed++;
            }
        }
        return removed;
    }

    static String folder(UUID shard) {
        return TableLayout.mergeJournalFolder(shard);
    }

    static String key(UUID shard, long generation) {
        if (generation < 1) {
            throw new FormatException(folder(shard), "generation " + generation + " must be >= 1", null);
        }
        return folder(shard) + TableLayout.sequenceName(generation);
    }
}
