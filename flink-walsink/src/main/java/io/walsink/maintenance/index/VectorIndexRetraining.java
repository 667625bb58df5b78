package io.walsink.maintenance.index;

import io.walsink.format.table.EmptyTableIndexes;
import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.MaintainedIndex;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.lance.Dataset;
import org.lance.index.Index;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quality rule of the maintained vector indexes. An IVF index's centroids (and an IVF_PQ's
 * codebook) are trained once, on the rows the base table held when the index was built; later
 * merges only add rows to the partitions those centroids define (lance-core's incremental
 * optimisation, which does not retrain). Once the base table holds {@value #RETRAIN_GROWTH} times
 * the rows the index was trained on, most rows were never seen by the training, so the index is
 * built again from all rows, replacing the old one in one commit. Doubling makes the rebuilds'
 * total work linear in the table's final size.
 *
 * <p>The trained row count is kept in the base table's config, {@code
 * walsink.index.<name>.trained-rows}; an index without it (built before this rule) records the
 * current count and is retrained from there.
 */
final class VectorIndexRetraining {
    private static final Logger LOG = LoggerFactory.getLogger(VectorIndexRetraining.class);

    /** How many times its training rows the base table holds before a vector index is retrained. */
    static final long RETRAIN_GROWTH = 2;

    private VectorIndexRetraining() {}

    static String configKey(String index) {
        return EmptyTableIndexes.trainedRowsKey(index);
    }

    /**
     * Records that {@code index} was just trained on {@code rows} rows, a commit of its own that
     * {@code beforeCommit} precedes; {@code base} moves to the new version.
     */
    static void trained(Dataset base, String index, long rows, Runnable beforeCommit) {
        beforeCommit.run();
        base.updateConfig(Map.of(configKey(index), Long.toString(rows)));
        base.checkoutLatest();
    }

    /**
     * Retrains each maintained vector index of {@code maintained} that the base table (at its latest
     * version) has outgrown; returns their names and leaves {@code base} at its latest version.
     *
     * @param beforeCommit runs before each commit (the compactor renews its lease: a rebuild can take minutes)
     */
    static List<String> run(Dataset base, List<MaintainedIndex> maintained, String tableUri, Runnable beforeCommit) {
        Set<String> present = base.getIndexes().stream().map(Index::name).collect(Collectors.toSet());
        Map<String, String> config = base.getConfig();
        List<String> retrained = new ArrayList<>();
        long rows = -1;
        for (MaintainedIndex index : maintained) {
            if (!index.type().isVector() || !present.contains(index.name())) {
                continue;
            }
            rows = rows < 0 ? base.countRows() : rows;
            String recorded = config.get(configKey(index.name()));
            if (recorded == null) {
                trained(base, index.name(), rows, beforeCommit); // the baseline of an index built before the rule
                continue;
            }
            long trainedOn = Long.parseLong(recorded);
            boolean starter = trainedOn < IndexBuilds.rowsToTrain(index);
            if (starter
                    ? rows == 0 || !stale(base, index.name(), rows, trainedOn)
                    : rows < RETRAIN_GROWTH * trainedOn) {
                continue;
            }
            long started = System.nanoTime();
            beforeCommit.run();
            if (rows < IndexBuilds.rowsToTrain(index)) {
                IndexBuilds.buildOnGeneration(base, List.of(index));
            } else {
                IndexBuilds.createOnBase(base, index);
            }
            base.checkoutLatest();
            trained(base, index.name(), rows, beforeCommit);
            retrained.add(index.name());
            LOG.info(
                    "Retrained maintained index {} of {} over {} base rows (trained on {} before) in {} ms, version {}",
                    index.name(),
                    tableUri,
                    rows,
                    trainedOn,
                    (System.nanoTime() - started) / 1_000_000,
                    base.version());
        }
        return retrained;
    }

    /**
     * Whether a starter index (trained on fewer rows than the declared type needs: its table's
     * placeholder rows, or a few merged ones) misses base rows: the row count changed or a fragment
     * is outside it. It is built again whole each time, never extended: its quantizer saw too few rows.
     */
    private static boolean stale(Dataset base, String name, long rows, long trainedOn) {
        if (rows != trainedOn) {
            return true;
        }
        Set<Integer> covered = new HashSet<>();
        base.getIndexes().stream().filter(i -> i.name().equals(name)).forEach(i -> i.fragments()
                .ifPresent(covered::addAll));
        return base.getFragments().stream().anyMatch(f -> !covered.contains(f.getId()));
    }
}
