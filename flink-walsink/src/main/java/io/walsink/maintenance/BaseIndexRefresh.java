package io.walsink.maintenance;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.Index;
import org.lance.index.OptimizeOptions;
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
 */
final class BaseIndexRefresh {
    private static final Logger LOG = LoggerFactory.getLogger(BaseIndexRefresh.class);

    private BaseIndexRefresh() {}

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
            Set<Integer> of = covered.computeIfAbsent(index.name(), k -> new HashSet<>());
            index.fragments().ifPresent(of::addAll);
        }
        return covered.entrySet().stream()
                .filter(e -> !e.getValue().containsAll(fragments))
                .map(Map.Entry::getKey)
                .toList();
    }

    /**
     * Optimises the stale indexes of {@code base} (checked out at its latest version) and returns
     * their names; {@code base} is left at the version that commit made.
     */
    static List<String> run(Dataset base, String tableUri) {
        List<String> names = stale(base);
        if (names.isEmpty()) {
            return names;
        }
        long before = base.version();
        base.optimizeIndices(OptimizeOptions.builder().indexNames(names).build());
        base.checkoutLatest();
        LOG.info("Brought the indexes {} of {} up to date: version {} -> {}", names, tableUri, before, base.version());
        return names;
    }
}
