package io.walsink.recovery;

import io.walsink.annotation.Internal;
import io.walsink.storage.ObjectStore;
import java.util.Objects;

/**
 * The exclusion a sink's restore holds while it rolls back merged rows: the table's maintenance
 * lease, taken for the job being restored. An entry the job's own maintenance holds (in another
 * subtask, or left by a dead attempt) is taken back at once, and that run stops before its next
 * commit; a standalone compactor's or collector's makes the restore fail naming it, and Flink's
 * restart strategy tries again. The job's subtasks restoring at the same time hold it together, and
 * it is free again once the last of them is done.
 */
@Internal
public final class RestoreExclusion implements MaintenanceExclusion {
    private final ObjectStore store;
    private final String tableUri;
    private final LeaseClaimant claimant;

    public RestoreExclusion(ObjectStore store, String tableUri, LeaseClaimant claimant) {
        this.store = Objects.requireNonNull(store, "store");
        this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
        this.claimant = Objects.requireNonNull(claimant, "claimant");
    }

    @Override
    public Held hold(String why) {
        CompactionLease lease = CompactionLease.acquireShared(
                store, tableUri, claimant.doing(why), CompactionLease.DEFAULT_DURATION, System::currentTimeMillis);
        return lease::close;
    }
}
