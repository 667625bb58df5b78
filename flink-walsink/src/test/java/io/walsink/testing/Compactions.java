package io.walsink.testing;

import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;

/** Runs the compactor once over a local table, with its default options, as a user's compaction would. */
public final class Compactions {
    private Compactions() {}

    public static void once(Path table) {
        try (RootAllocator allocator = new RootAllocator()) {
            new TableCompaction(
                            new TableLocation(new LocalObjectStore(table), table.toString(), Map.of()),
                            allocator,
                            CompactorOptions.defaults())
                    .run();
        }
    }
}
