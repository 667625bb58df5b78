package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.table.TableInfo;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Decodes a WAL entry whichever supported {@link WalSchemaProfile} wrote it. The profile is a
 * writer setting recorded nowhere in the table, so tools that read a table they did not write
 * (verification, inspection) try each profile's storage schema in turn. The profiles never accept
 * each other's entries: only the spec profile has the {@code _tombstone} column.
 */
@Internal
public final class AnyProfileDecoder {
    private final Map<WalSchemaProfile, WalEntryCodec> codecs = new EnumMap<>(WalSchemaProfile.class);

    /** @param allocator allocates the decoded batches */
    public AnyProfileDecoder(TableInfo table, BufferAllocator allocator) {
        for (WalSchemaProfile profile : WalSchemaProfile.values()) {
            codecs.put(profile, new WalEntryCodec(WalStorageSchema.of(table, profile), allocator));
        }
    }

    /**
     * An entry and the profile whose storage schema it matches; a fence sentinel has no columns and
     * so no profile.
     */
    public record Decoded(WalEntry entry, Optional<WalSchemaProfile> profile) implements AutoCloseable {
        @Override
        public void close() {
            entry.close();
        }
    }

    /**
     * @throws CorruptWalEntryException bytes that no profile could decode
     * @throws WalSchemaMismatchException columns that match no profile's storage schema (the
     *     message is the spec profile's; the others' are suppressed on it)
     */
    public Decoded decode(String location, long position, byte[] bytes) {
        List<WalSchemaMismatchException> mismatches = new ArrayList<>();
        for (Map.Entry<WalSchemaProfile, WalEntryCodec> c : codecs.entrySet()) {
            WalEntry entry;
            try {
                entry = c.getValue().decode(location, position, bytes);
            } catch (WalSchemaMismatchException e) {
                mismatches.add(e);
                continue;
            }
            return new Decoded(entry, entry.sentinel() ? Optional.empty() : Optional.of(c.getKey()));
        }
        WalSchemaMismatchException first = mismatches.get(0);
        mismatches.subList(1, mismatches.size()).forEach(first::addSuppressed);
        throw first;
    }
}
