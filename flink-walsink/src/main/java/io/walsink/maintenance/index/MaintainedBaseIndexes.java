package io.walsink.maintenance.index;

import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MemWalMaintainedIndexes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.lance.Dataset;
import org.lance.index.Index;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the table's maintained indexes the base table lacks. A table gets them when it is created
 * ({@code EmptyTableIndexes}), but lance-core drops a vector index once no fragment it covers is
 * left (the placeholder fragment a new table's vector index covers goes at the first file
 * compaction), and a table created before walsink built them there has none: a vector index is
 * then built again over the base rows, as a starter (the type every SSTable gets) while they are
 * fewer than its declared type trains on ({@link VectorIndexRetraining} replaces it later). Lance's
 * LSM readers (LanceDB's default search) need the base index: without it they refuse a vector or
 * full-text search.
 */
final class MaintainedBaseIndexes {
    private static final Logger LOG = LoggerFactory.getLogger(MaintainedBaseIndexes.class);

    private MaintainedBaseIndexes() {}

    /**
     * Creates each index of {@code maintained} that {@code base} (at its latest version) lacks and
     * has rows enough for; returns their names and leaves {@code base} at its latest version.
     *
     * @param beforeCommit runs before each commit (the compactor renews its lease: a build can take minutes)
     */
    static List<String> createMissing(
            Dataset base, List<MaintainedIndex> maintained, String tableUri, Runnable beforeCommit) {
        Set<String> present = base.getIndexes().stream().map(Index::name).collect(Collectors.toSet());
        List<String> created = new ArrayList<>();
        long rows = -1;
        for (MaintainedIndex index : maintained) {
            if (present.contains(index.name())) {
                continue;
            }
            rows = rows < 0 ? base.countRows() : rows;
            boolean starter = rows < IndexBuilds.rowsToTrain(index);
            if (starter && (!index.type().isVector() || rows == 0)) {
                LOG.info(
                        "Maintained index {} of {} waits for {} base rows to build from ({} merged so far)",
                        index.name(),
                        tableUri,
                        IndexBuilds.rowsToTrain(index),
                        rows);
                continue;
            }
            long started = System.nanoTime();
            beforeCommit.run();
            if (starter) {
                IndexBuilds.buildOnGeneration(base, List.of(index));
            } else {
                IndexBuilds.createOnBase(base, index);
            }
            base.checkoutLatest();
            if (index.type().isVector()) {
                VectorIndexRetraining.trained(base, index.name(), rows, beforeCommit);
            }
            created.add(index.name());
            LOG.info(
                    "Created maintained index {} ({} on '{}') over {} base rows of {} in {} ms, version {}",
                    index.name(),
                    starter ? IndexBuilds.generationType(index) : index.type(),
                    index.column(),
                    rows,
                    tableUri,
                    (System.nanoTime() - started) / 1_000_000,
                    base.version());
        }
        return created;
    }

    /**
     * Lists in the MemWAL index each of {@code maintained} that {@code base} has built and the
     * index does not list yet: from then on Lance's LSM readers search through it.
     */
    static void listBuilt(Dataset base, List<MaintainedIndex> maintained, String tableUri) {
        Set<String> present = base.getIndexes().stream().map(Index::name).collect(Collectors.toSet());
        for (MaintainedIndex index : maintained) {
            if (present.contains(index.name()) && MemWalMaintainedIndexes.add(base, index.name(), tableUri)) {
                LOG.info(
                        "Listed {} as maintained in the MemWAL index of {}, version {}",
                        index.name(),
                        tableUri,
                        base.version());
            }
        }
    }
}
