package io.walsink.testing;

import io.walsink.format.table.LanceTables;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.lance.Dataset;

/** The base table's versions as lance-core reports them, for the time-travel tests. */
public final class BaseVersions {
    private BaseVersions() {}

    public static long latest(String table) {
        try (RootAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, table, Map.of())) {
            return base.version();
        }
    }

    /** When {@code version} was committed (lance-core's nanoseconds). */
    public static Instant committed(String table, long version) {
        try (RootAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, table, Map.of())) {
            return base.listVersions().stream()
                    .filter(v -> v.getId() == version)
                    .findFirst()
                    .orElseThrow()
                    .getDataTime()
                    .toInstant();
        }
    }

    /**
     * The first millisecond boundary at or after {@code version}'s commit: the millisecond instant
     * (SQL's precision) a time-travel read of that version is given.
     */
    public static Instant readableAt(String table, long version) {
        Instant t = committed(table, version);
        Instant down = t.truncatedTo(ChronoUnit.MILLIS);
        return down.equals(t) ? t : down.plusMillis(1);
    }
}
