package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.table.MergedGenerations;
import java.util.Map;
import java.util.UUID;
import org.lance.Dataset;

/**
 * Per shard, the highest SSTable generation already compacted into the base table, as the base
 * table's MemWAL index records it ({@link MergedGenerations}); SSTables up to it are not read.
 */
@Internal
public final class CompactedSsTables {
    static final String MEM_WAL_INDEX = MergedGenerations.MEM_WAL_INDEX;

    private CompactedSsTables() {}

    /** Empty when the table has no MemWAL index or nothing was compacted. */
    public static Map<UUID, Long> of(Dataset ds, String location) {
        return MergedGenerations.of(ds, location);
    }

    public static Map<UUID, Long> decodeAny(byte[] any, String location) {
        return MergedGenerations.decodeAny(any, location);
    }
}
