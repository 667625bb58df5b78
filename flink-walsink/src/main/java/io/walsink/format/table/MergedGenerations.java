package io.walsink.format.table;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.index.Index;

/**
 * Per shard, the highest SSTable generation already merged (compacted) into the base table: {@code
 * MemWalIndexDetails.compacted_sstables} (field 9) of the base table's {@code __lance_mem_wal} index,
 * which lance-core's {@code MergeInsertParams.markGenerationsAsMerged} sets in the same commit as the
 * merged rows. lance-core 7.0.0's {@code MemWalIndexDetails} class does not expose the field, but
 * {@code Dataset.getIndexes()} hands out the index details as a protobuf {@code Any}, decoded here.
 *
 * <p>The compactor reads it to skip what is merged, writers to drop merged SSTables from their shard
 * manifests, readers to skip merged SSTables a manifest still lists.
 */
@Internal
public final class MergedGenerations {
    public static final String MEM_WAL_INDEX = "__lance_mem_wal";
    private static final String DETAILS_TYPE = "lance.table.MemWalIndexDetails";
    private static final int ANY_TYPE_URL = 1;
    private static final int ANY_VALUE = 2;
    private static final int COMPACTED_SSTABLES = 9;
    private static final int COMPACTED_SHARD_ID = 1;
    private static final int COMPACTED_GENERATION = 2;
    private static final int UUID_BYTES = 1;

    private MergedGenerations() {}

    /** Of the version {@code ds} has checked out; empty when the table has no MemWAL index or nothing was merged. */
    public static Map<UUID, Long> of(Dataset ds, String location) {
        for (Index index : ds.getIndexes()) {
            if (MEM_WAL_INDEX.equals(index.name()) && index.indexDetails().isPresent()) {
                return decodeAny(index.indexDetails().get(), location + " (index " + MEM_WAL_INDEX + ")");
            }
        }
        return Map.of();
    }

    /** Of the latest version of the table at {@code uri}. */
    public static Map<UUID, Long> latest(BufferAllocator allocator, String uri, Map<String, String> storageOptions) {
        try (Dataset ds = LanceTables.openDataset(allocator, uri, storageOptions)) {
            return of(ds, uri);
        }
    }

    public static Map<UUID, Long> decodeAny(byte[] any, String location) {
        try {
            CodedInputStream in = CodedInputStream.newInstance(any);
            String typeUrl = null;
            byte[] value = new byte[0];
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case ANY_TYPE_URL -> typeUrl = in.readString();
                    case ANY_VALUE -> value = in.readByteArray();
                    default -> in.skipField(tag);
                }
            }
            if (typeUrl == null || !typeUrl.endsWith(DETAILS_TYPE)) {
                throw new FormatException(location, "index details are '" + typeUrl + "', not " + DETAILS_TYPE, null);
            }
            return decodeDetails(value);
        } catch (IOException | IllegalArgumentException e) {
            throw new FormatException(location, "cannot decode MemWalIndexDetails: " + e.getMessage(), e);
        }
    }

    private static Map<UUID, Long> decodeDetails(byte[] details) throws IOException {
        Map<UUID, Long> merged = new HashMap<>();
        CodedInputStream in = CodedInputStream.newInstance(details);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == COMPACTED_SSTABLES) {
                CodedInputStream entry = CodedInputStream.newInstance(in.readByteArray());
                UUID shard = null;
                long generation = 0;
                for (int t = entry.readTag(); t != 0; t = entry.readTag()) {
                    switch (WireFormat.getTagFieldNumber(t)) {
                        case COMPACTED_SHARD_ID -> shard = uuid(entry.readByteArray());
                        case COMPACTED_GENERATION -> generation = entry.readUInt64();
                        default -> entry.skipField(t);
                    }
                }
                if (shard == null) {
                    throw new IllegalArgumentException("compacted_sstables entry without shard_id");
                }
                merged.merge(shard, generation, Math::max);
            } else {
                in.skipField(tag);
            }
        }
        return merged;
    }

    private static UUID uuid(byte[] message) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(message);
        byte[] bytes = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) == UUID_BYTES) {
                bytes = in.readByteArray();
            } else {
                in.skipField(tag);
            }
        }
        if (bytes == null || bytes.length != 16) {
            throw new IllegalArgumentException("UUID must be 16 bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new UUID(b.getLong(), b.getLong());
    }
}
