package io.walsink.format;

import io.walsink.annotation.Internal;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * What one object key under {@code _mem_wal/} is ({@link TableLayout#classify}): which shard folder
 * it sits in and whether it is a manifest version, the version hint, a WAL entry, a file of an
 * SSTable folder, a temporary file of an interrupted put, or something that does not belong.
 *
 * @param shard the canonical shard folder it sits in; empty when it is in none
 * @param number the manifest version, WAL position or SSTable generation; 0 for the other kinds
 * @param ssTableFolder the SSTable folder name for {@link Kind#SSTABLE_FILE}, else empty
 * @param problem why an object that does not {@link #belongs} is out of place (for {@code walsink
 *     verify}); empty for the others
 */
@Internal
public record MemWalObject(
        String key,
        Kind kind,
        Optional<UUID> shard,
        long number,
        Optional<String> ssTableFolder,
        Optional<String> problem) {

    public enum Kind {
        MANIFEST_VERSION,
        VERSION_HINT,
        WAL_ENTRY,
        /** Any file inside an SSTable folder (a Lance dataset with its own files and index). */
        SSTABLE_FILE,
        /** A {@code .tmp-*.partial} file of a put that never completed, directly in a shard folder, manifest/ or wal/. */
        TEMPORARY,
        UNKNOWN
    }

    public static final String TEMPORARY_PROBLEM = "temporary file of an interrupted write left in the table"
            + " (garbage collection removes it once older than an hour)";
    static final String OUTSIDE = "not inside a shard folder (_mem_wal/{shard uuid}/)";
    static final String UNEXPECTED = "unexpected object in the shard folder "
            + "(only manifest/, wal/ and SSTable folders {random8}_gen_{g}/ belong there)";

    static MemWalObject of(String key) {
        if (!key.startsWith(TableLayout.MEM_WAL)) {
            throw new IllegalArgumentException("not a key under " + TableLayout.MEM_WAL + ": " + key);
        }
        String rest = key.substring(TableLayout.MEM_WAL.length());
        int slash = rest.indexOf('/');
        Optional<UUID> shard = slash > 0 ? TableLayout.parseShardFolder(rest.substring(0, slash)) : Optional.empty();
        if (shard.isEmpty()) {
            return unknown(key, shard, OUTSIDE);
        }
        String inShard = rest.substring(slash + 1);
        int inner = inShard.indexOf('/');
        String top = inner < 0 ? inShard : inShard.substring(0, inner);
        String name = inShard.substring(inner + 1);
        boolean direct = inner > 0 && name.indexOf('/') < 0; // one level below top
        if (direct && top.equals(TableLayout.MANIFESTS)) {
            return inManifests(key, shard, name);
        }
        if (direct && top.equals(TableLayout.WAL)) {
            return numbered(
                    key,
                    shard,
                    Kind.WAL_ENTRY,
                    BitReversedName.parseWalEntryPosition(name),
                    name,
                    "not a WAL entry name");
        }
        OptionalLong generation = TableLayout.ssTableGeneration(top);
        if (inner > 0 && generation.isPresent()) {
            return new MemWalObject(
                    key, Kind.SSTABLE_FILE, shard, generation.getAsLong(), Optional.of(top), Optional.empty());
        }
        if (inner < 0 && TableLayout.isTemporary(inShard)) {
            return temporary(key, shard);
        }
        return unknown(key, shard, UNEXPECTED);
    }

    private static MemWalObject inManifests(String key, Optional<UUID> shard, String name) {
        if (name.equals(TableLayout.VERSION_HINT)) {
            return plain(key, Kind.VERSION_HINT, shard, 0);
        }
        return numbered(
                key,
                shard,
                Kind.MANIFEST_VERSION,
                BitReversedName.parseManifestVersion(name),
                name,
                "not a manifest version name");
    }

    private static MemWalObject numbered(
            String key, Optional<UUID> shard, Kind kind, OptionalLong number, String name, String otherwise) {
        if (number.isPresent()) {
            return plain(key, kind, shard, number.getAsLong());
        }
        return TableLayout.isTemporary(name) ? temporary(key, shard) : unknown(key, shard, otherwise);
    }

    private static MemWalObject plain(String key, Kind kind, Optional<UUID> shard, long number) {
        return new MemWalObject(key, kind, shard, number, Optional.empty(), Optional.empty());
    }

    private static MemWalObject temporary(String key, Optional<UUID> shard) {
        return new MemWalObject(key, Kind.TEMPORARY, shard, 0, Optional.empty(), Optional.of(TEMPORARY_PROBLEM));
    }

    private static MemWalObject unknown(String key, Optional<UUID> shard, String why) {
        return new MemWalObject(key, Kind.UNKNOWN, shard, 0, Optional.empty(), Optional.of(why));
    }

    /** Whether it is one of the objects the layout puts in a shard folder (not temporary, not unknown). */
    public boolean belongs() {
        return kind != Kind.UNKNOWN && kind != Kind.TEMPORARY;
    }
}
