package io.walsink.maintenance;

import io.walsink.annotation.PublicEvolving;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a table rollback did.
 *
 * @param target the base table version the table reads as now
 * @param newBase the base table version the rollback's Lance restore committed (its content is the
 *     target's)
 * @param fencedEpochs per shard, the writer epoch of the rollback's claim: restores of states at or
 *     below it are refused
 * @param droppedSsTables per shard, the SSTables its manifest listed before the rollback emptied it
 * @param resumed whether it finished a rollback an earlier run began
 */
@PublicEvolving
public record RollbackResult(
        long target, long newBase, Map<UUID, Long> fencedEpochs, Map<UUID, Integer> droppedSsTables, boolean resumed) {
    public RollbackResult {
        fencedEpochs = Map.copyOf(fencedEpochs);
        droppedSsTables = Map.copyOf(droppedSsTables);
    }

    /** One line for the table, then one per shard. */
    public List<String> describe(String table) {
        List<String> lines = new ArrayList<>();
        lines.add("Rolled back " + table + " to version " + target + " as new base version " + newBase + ": "
                + fencedEpochs.size() + " shards reset, "
                + droppedSsTables.values().stream().mapToInt(Integer::intValue).sum() + " SSTables dropped"
                + (resumed ? " (finished an interrupted rollback)" : ""));
        fencedEpochs.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> lines.add("shard " + e.getKey() + ": fenced at epoch " + e.getValue() + ", "
                        + droppedSsTables.getOrDefault(e.getKey(), 0) + " SSTables dropped"));
        return lines;
    }
}
