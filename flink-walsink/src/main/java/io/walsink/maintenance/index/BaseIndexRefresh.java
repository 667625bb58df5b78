package io.walsink.maintenance.index;

import io.walsink.annotation.Internal;
import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.recovery.KeyDeletes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.index.scalar.BitmapIndexParams;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.schema.LanceField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the base table's column indexes (a BTREE on the key, a vector index: whatever a user
 * created, with lance-core or LanceDB) up to date after a compaction merged rows into it. A merge
 * writes the merged rows to new fragments and lance-core takes every fragment it touched out of
 * those indexes, so without this a key lookup or filter on an indexed column reads the whole
 * table again after the first compaction. lance-core's index optimisation indexes what is
 * uncovered and merges it into the existing index (no retraining). System indexes (names starting
 * with two underscores, such as the MemWAL index) are left alone.
 *
 * <p>The file compaction that tidies the base table must defer its index remapping (lance-core
 * 7.0.0 aborts remapping the MemWAL index): it records which old rows moved where in the
 * {@code __lance_frag_reuse} index and leaves the index segments built before it pointing at the
 * old rows. Neither lance-core 7.0.0 nor LanceDB's newer Lance reads such a vector segment right
 * (the first fails the search on a fragment that no longer exists, the second panics or misses the
 * nearest rows: recall 0.13 instead of 0.96 in one measured table; an indexed filter through a
 * BTREE missed 19 of 112 rows), so every index with such a segment is rebuilt onto where the rows
 * are now.
 *
 * <p>The compaction reaches this package through here only ({@link #afterMerges}), so the order of
 * the index work (create, retrain, then refresh) stays in one place.
 */
@Internal
public final class BaseIndexRefresh {
    private static final Logger LOG = LoggerFactory.getLogger(BaseIndexRefresh.class);

    /** lance-core's record of the rows a deferred-remap file compaction moved. */
    static final String FRAGMENT_REUSE_INDEX = "__lance_frag_reuse";

    private static final Set<IndexType> VECTOR_TYPES = EnumSet.of(
            IndexType.IVF_FLAT,
            IndexType.IVF_PQ,
            IndexType.IVF_SQ,
            IndexType.IVF_HNSW_FLAT,
            IndexType.IVF_HNSW_PQ,
            IndexType.IVF_HNSW_SQ,
            IndexType.IVF_RQ,
            IndexType.VECTOR);

    /**
     * Full-text (INVERTED) indexes are never optimised here: lance-core 7.0.0 panicked optimising a
     * merged table's inverted index (index out of bounds in lance-index's inverted/index.rs), a
     * panic that cannot unwind and aborts the whole JVM, a TaskManager's with every task on it. A
     * maintained one (walsink knows its parameters) is built again whole instead; one a user created
     * stays as it was, warned about once per table and index.
     */
    private static final Set<String> FULL_TEXT_WARNED = ConcurrentHashMap.newKeySet();

    private BaseIndexRefresh() {}

    private static final Set<String> KEY_INDEX_WARNED = ConcurrentHashMap.newKeySet();

    private static final Set<String> REUSE_KEPT_WARNED = ConcurrentHashMap.newKeySet();

    /** The user indexes on exactly the key columns ({@link KeyDeletes#keyIndexes}). */
    static List<String> keyIndexes(Dataset base, List<String> keyColumns) {
        return KeyDeletes.keyIndexes(base, keyColumns);
    }

    /**
     * Warns, once per table and index, of an index on a key whose deletes {@link KeyDeletes} cannot
     * write as a predicate: those deletes are lost while the index covers the rows.
     */
    public static void warnOfKeyIndexes(Dataset base, List<Field> keyFields, String tableUri) {
        if (KeyDeletes.supports(keyFields)) {
            return;
        }
        List<String> keyColumns = keyFields.stream().map(Field::getName).toList();
        for (String index : keyIndexes(base, keyColumns)) {
            if (KEY_INDEX_WARNED.add(tableUri + "#" + index)) {
                LOG.warn(
                        "The base table {} has an index on its key {} ({}): lance-core 7.0.0 loses the deletes that"
                                + " compaction merges while such an index covers the deleted rows (they stay in the"
                                + " base table), and walsink deletes them another way only for a single integer or"
                                + " string key. Drop the index; see docs/guarantees.md",
                        tableUri,
                        keyColumns,
                        index);
            }
        }
    }

    /**
     * After a compaction's merges (and its file compaction): the maintained indexes the base table
     * lacks are created once it has rows for them, those it outgrew are retrained ({@link
     * VectorIndexRetraining}), then every index loses what the merges left stale ({@link #run});
     * {@code base} ends at its latest version.
     *
     * @param beforeCommit runs before each commit (the compactor renews its lease: a build can take minutes)
     */
    public static void afterMerges(
            Dataset base, String tableUri, List<MaintainedIndex> maintained, Runnable beforeCommit) {
        if (!maintained.isEmpty()) {
            MaintainedBaseIndexes.createMissing(base, maintained, tableUri, beforeCommit);
            MaintainedBaseIndexes.listBuilt(base, maintained, tableUri);
            // first: a rebuild leaves nothing to refresh
            VectorIndexRetraining.run(base, maintained, tableUri, beforeCommit);
        }
        run(base, tableUri, maintained, beforeCommit);
    }

    /** The full-text indexes of {@code base} that do not cover every fragment or point at moved rows. */
    static List<String> fullTextLeftStale(Dataset base) {
        Set<Integer> fragments = new HashSet<>();
        for (Fragment f : base.getFragments()) {
            fragments.add(f.getId());
        }
        Map<String, Set<Integer>> covered = new TreeMap<>();
        for (Index index : base.getIndexes()) {
            if (index.indexType() == IndexType.INVERTED) {
                covered.computeIfAbsent(index.name(), k -> new HashSet<>())
                        .addAll(index.fragments().orElse(List.of()));
            }
        }
        Set<String> left = new TreeSet<>();
        covered.forEach((name, of) -> {
            if (!of.containsAll(fragments)) {
                left.add(name);
            }
        });
        remapPending(base).forEach((name, segments) -> {
            if (segments.get(0).indexType() == IndexType.INVERTED) {
                left.add(name);
            }
        });
        return List.copyOf(left);
    }

    /** The user indexes that do not cover every fragment of {@code base}'s checked-out version. */
    static List<String> stale(Dataset base) {
        Set<Integer> fragments = new HashSet<>();
        for (Fragment f : base.getFragments()) {
            fragments.add(f.getId());
        }
        Map<String, Set<Integer>> covered = new TreeMap<>();
        for (Index index : base.getIndexes()) {
            if (index.name().startsWith("__") || index.fields().isEmpty()) {
                continue;
            }
            if (index.indexType() == IndexType.INVERTED) {
                continue; // see FULL_TEXT_LEFT_ALONE
            }
            Set<Integer> of = covered.computeIfAbsent(index.name(), k -> new HashSet<>());
            index.fragments().ifPresent(of::addAll);
        }
        return covered.entrySet().stream()
                .filter(e -> !e.getValue().containsAll(fragments))
                .map(Map.Entry::getKey)
                .toList();
    }

    /**
     * The user indexes with a segment built before a deferred-remap file compaction rewrote one of
     * its fragments (the segment's version is older than the fragment-reuse record's, and it covers
     * a fragment that record wrote), each with its segments.
     */
    static Map<String, List<Index>> remapPending(Dataset base) {
        List<Index> indexes = base.getIndexes();
        Optional<Index> reuse = indexes.stream()
                .filter(i -> i.name().equals(FRAGMENT_REUSE_INDEX))
                .findFirst();
        Map<String, List<Index>> segments = new TreeMap<>();
        Set<String> pending = new TreeSet<>();
        if (reuse.isEmpty()) {
            return Map.of();
        }
        Set<Integer> rewritten = new HashSet<>(reuse.get().fragments().orElse(List.of()));
        for (Index index : indexes) {
            if (index.name().startsWith("__") || index.fields().isEmpty()) {
                continue;
            }
            segments.computeIfAbsent(index.name(), k -> new ArrayList<>()).add(index);
            boolean older = index.datasetVersion() < reuse.get().datasetVersion();
            if (older && index.fragments().orElse(List.of()).stream().anyMatch(rewritten::contains)) {
                pending.add(index.name());
            }
        }
        segments.keySet().retainAll(pending);
        return segments;
    }

    /**
     * Rebuilds every index {@link #remapPending} names onto the moved rows, builds the stale
     * full-text indexes of {@code maintained} again whole, then optimises the other stale ones of
     * {@code base} (checked out at its latest version), drops the fragment-reuse record when no
     * index needs it any more, and returns the names of the indexes it brought up to date; {@code
     * base} is left at the version those commits made.
     *
     * @param beforeCommit runs before each of those commits: the compactor renews its lease there, so
     *     one whose lease was taken over during a long rebuild stops before its next commit
     */
    static List<String> run(Dataset base, String tableUri, List<MaintainedIndex> maintained, Runnable beforeCommit) {
        long before = base.version();
        Set<String> remapped = new TreeSet<>();
        for (Map.Entry<String, List<Index>> pending : remapPending(base).entrySet()) {
            if (remap(base, pending.getKey(), pending.getValue(), tableUri, beforeCommit)) {
                remapped.add(pending.getKey());
            }
            base.checkoutLatest();
        }
        Set<String> rebuilt = new TreeSet<>();
        for (String name : fullTextLeftStale(base)) {
            Optional<MaintainedIndex> declared = maintained.stream()
                    .filter(i -> i.name().equals(name) && i.type() == MaintainedIndex.Type.INVERTED)
                    .findFirst();
            if (declared.isPresent()) {
                beforeCommit.run();
                IndexBuilds.createOnBase(base, declared.get()); // replaces the old one in one commit
                base.checkoutLatest();
                rebuilt.add(name);
            } else if (FULL_TEXT_WARNED.add(tableUri + "#" + name)) {
                LOG.warn(
                        "The full-text index {} of {} does not cover the rows compaction merged since it was built,"
                                + " and walsink leaves it so: lance-core 7.0.0 panicked (aborting the JVM) bringing a"
                                + " merged table's inverted index up to date, and walsink knows the parameters only of"
                                + " the full-text indexes it maintains. Rebuild it outside the job (drop and create it"
                                + " again) to search those rows, or declare it maintained when creating the table.",
                        name,
                        tableUri);
            }
        }
        List<String> names = stale(base);
        if (!names.isEmpty()) {
            beforeCommit.run();
            base.optimizeIndices(OptimizeOptions.builder().indexNames(names).build());
            base.checkoutLatest();
        }
        dropSpentReuseRecord(base, tableUri, beforeCommit);
        Set<String> done = new TreeSet<>(remapped);
        done.addAll(rebuilt);
        done.addAll(names);
        if (!done.isEmpty()) {
            LOG.info(
                    "Brought the indexes {} of {} up to date ({} rebuilt onto rows a file compaction moved, full text"
                            + " {} built again whole): version {} -> {}",
                    done,
                    tableUri,
                    remapped,
                    rebuilt,
                    before,
                    base.version());
        }
        return List.copyOf(done);
    }

    /**
     * Drops the fragment-reuse record once no index points at the rows it moved (all rebuilt by
     * {@link #run}, or none built before), as lance-core's own clean-up of that record would. It
     * only grows otherwise, one row map per file compaction, and lance-core reads all of it
     * whenever it loads a version's indexes: every writer's publication reads the base table's
     * merge progress that way, and a 256-bucket table measured 1.5 s a read after 20 minutes,
     * enough to stall its checkpoints. Kept while an index still needs it (a full-text index or
     * one of a type walsink cannot rebuild), until that index is rebuilt. Returns whether it
     * dropped it; {@code base} is left at the latest version.
     */
    static boolean dropSpentReuseRecord(Dataset base, String tableUri, Runnable beforeCommit) {
        boolean recorded = base.getIndexes().stream().anyMatch(i -> i.name().equals(FRAGMENT_REUSE_INDEX));
        if (!recorded) {
            return false;
        }
        Map<String, List<Index>> pending = remapPending(base);
        if (!pending.isEmpty()) {
            if (REUSE_KEPT_WARNED.add(tableUri + "#" + pending.keySet())) {
                LOG.warn(
                        "Keeping the fragment-reuse record of {}: the indexes {} still point at rows a file"
                                + " compaction moved. The record grows with every file compaction and lance-core reads"
                                + " it whenever it loads the table's indexes, so writers' publications and reads slow"
                                + " down until those indexes are rebuilt (dropped and created again)",
                        tableUri,
                        pending.keySet());
            }
            return false;
        }
        long before = base.version();
        beforeCommit.run();
        base.dropIndex(FRAGMENT_REUSE_INDEX);
        base.checkoutLatest();
        LOG.info(
                "Dropped the fragment-reuse record of {}: no index points at the rows it moved (version {} -> {})",
                tableUri,
                before,
                base.version());
        return true;
    }

    /**
     * A vector index has its segments merged into one, which maps the moved rows (measured: recall
     * back from 0.13 to 0.96); a BTREE or BITMAP index is built again over the column and replaces
     * the old one in one commit, because lance-core 7.0.0's merge and even its retraining of such an
     * index keep the old rows' addresses (an indexed filter then misses the moved rows). Other types
     * (a full-text index, whose parameters are not known here) are left, with a warning.
     */
    private static boolean remap(
            Dataset base, String name, List<Index> segments, String tableUri, Runnable beforeCommit) {
        IndexType type = segments.get(0).indexType();
        if (type != null && VECTOR_TYPES.contains(type)) {
            beforeCommit.run();
            base.optimizeIndices(OptimizeOptions.builder()
                    .indexNames(List.of(name))
                    .numIndicesToMerge(segments.size())
                    .build());
            return true;
        }
        if (type == IndexType.BTREE || type == IndexType.BITMAP) {
            List<String> columns = columns(base, segments.get(0).fields());
            ScalarIndexParams params = type == IndexType.BTREE
                    ? new BTreeIndexParams.Builder().build()
                    : new BitmapIndexParams.Builder().build();
            beforeCommit.run();
            base.createIndex(
                    columns,
                    type,
                    Optional.of(name),
                    IndexParams.builder().setScalarIndexParams(params).build(),
                    true);
            return true;
        }
        if (type != IndexType.INVERTED) { // full text: warned about by run
            LOG.warn(
                    "The {} index {} of {} still points at rows a file compaction moved, and walsink cannot"
                            + " rebuild an index of that type: searches through it may miss those rows until it is"
                            + " rebuilt (for example dropped and created again)",
                    type,
                    name,
                    tableUri);
        }
        return false;
    }

    /** The top-level columns' Lance field ids, by name. */
    private static Map<String, Integer> fieldIds(Dataset base) {
        Map<String, Integer> ids = new HashMap<>();
        for (LanceField f : base.getLanceSchema().fields()) {
            ids.put(f.getName(), f.getId());
        }
        return ids;
    }

    private static List<String> columns(Dataset base, List<Integer> fieldIds) {
        Map<Integer, String> names = new HashMap<>();
        fieldIds(base).forEach((name, id) -> names.put(id, name));
        List<String> columns = new ArrayList<>();
        for (Integer id : fieldIds) {
            columns.add(Objects.requireNonNull(names.get(id), () -> "no top-level field with id " + id));
        }
        return columns;
    }
}
