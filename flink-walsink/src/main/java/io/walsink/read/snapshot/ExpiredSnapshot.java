package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.GarbageCollectedException;

/**
 * The error for an object of a pinned {@link TableSnapshot} that is gone when it is read. Its
 * removal is what garbage collection and base-table cleanup do once {@code sink.gc.retention}
 * has passed; reading whatever replaced it would silently give other rows than the snapshot's.
 */
@Internal
public final class ExpiredSnapshot {
    public static final String RETENTION_OPTION = "sink.gc.retention";

    private ExpiredSnapshot() {}

    /**
     * @param location the object that is gone, as a user would write it
     * @param what the object, e.g. "manifest version 4 of shard ..."
     * @param cause what the store or lance-core said, or null
     */
    public static GarbageCollectedException of(
            String location, String what, String tableUri, TableSnapshot snapshot, String cause) {
        return new GarbageCollectedException(
                location,
                what + " of table " + tableUri + " is missing"
                        + (cause == null ? "" : " (" + cause + ")")
                        + ", though the snapshot being read names it (" + snapshot.describe() + "): garbage"
                        + " collection removed it after the snapshot was pinned, or it was lost. A pinned snapshot"
                        + " stays readable for " + RETENTION_OPTION + ": raise it above the longest a bounded scan"
                        + " runs, restarts included, or start the scan again");
    }
}
