package io.walsink.recovery;

import io.walsink.annotation.Internal;

/**
 * Keeps the table's maintenance (compaction, garbage collection) away while a restore rolls back
 * rows the compactor merged: the maintenance layer implements it with the table's maintenance lease.
 */
@Internal
public interface MaintenanceExclusion {
    /** For tools and tests that run no maintenance at the same time. */
    MaintenanceExclusion NONE = why -> () -> {};

    /**
     * Returns once no compactor or collector can commit until the result is closed.
     *
     * @param why for the holder's name in messages
     */
    Held hold(String why);

    /** Held until closed. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }
}
