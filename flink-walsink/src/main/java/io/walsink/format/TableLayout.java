package io.walsink.format;

import io.walsink.annotation.Internal;
import io.walsink.storage.ListPage;
import io.walsink.storage.ObjectMeta;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.TemporaryFileNames;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where every object of a table lives, relative to the table root (docs/format.md, "Layout"), and
 * what a key under {@code _mem_wal/} is. The only class that knows the folder layout: writers build
 * their keys here, and the readers, the compactor, the collector and the CLI find shards and
 * classify objects here, so they cannot disagree about it.
 *
 * <h2>What a shard is</h2>
 *
 * A <em>shard</em> is a canonical shard folder (the lower-case UUID {@link #shardFolder} writes)
 * holding at least one manifest version ({@link #shards}). A shard comes into being with its first
 * manifest version (a claim writes version 1 before any WAL entry or SSTable), every reader starts
 * from the latest version, and garbage collection never removes the latest one. A folder without a
 * version therefore holds nothing a reader may read: it is a shard being copied or removed ({@code
 * migrate-shard-ids} writes and deletes the manifests last) or objects put there by hand. Counting it as a
 * shard would make writers refuse a table for an "overlap" with a folder that holds no keys, and
 * readers fail on a left-over version hint; the hint alone does not count, as it is written after
 * the version and only best effort. {@code walsink verify}, which must look at every object, asks
 * {@link MemWalListing#folders} instead.
 */
@Internal
public final class TableLayout {
    /** Lance's MemWAL folder: shards, their manifests, WAL entries and SSTables. */
    public static final String MEM_WAL = "_mem_wal/";
    /** walsink's own records, outside every folder Lance reads. */
    public static final String WALSINK = "_walsink/";

    public static final String VERSION_HINT = "version_hint.json";
    public static final String COMPACTION_LEASE_FOLDER = WALSINK + "compaction-lease/";
    public static final String JOB_START_FOLDER = WALSINK + "jobs/";
    /** A table rollback begun and not finished ({@code RollbackRecords}). */
    public static final String ROLLBACK_INTENT = WALSINK + "rollback/intent";
    /** The latest table rollback that finished ({@code RollbackRecords}). */
    public static final String ROLLBACK_RECORD = WALSINK + "rollback/done";
    /** Continuous reads' consumer records: {@code consumers/{id}/{split}.json}. */
    public static final String CONSUMER_FOLDER = WALSINK + "consumers/";

    /** The folders of a shard folder that hold its manifest versions and its WAL entries. */
    static final String MANIFESTS = "manifest";

    static final String WAL = "wal";

    private static final Pattern SSTABLE_FOLDER = Pattern.compile("[0-9a-f]{8}_gen_([1-9][0-9]*)");
    private static final Pattern JOB_START_RECORD = Pattern.compile("bucket-(0|[1-9][0-9]{0,8})\\.bin");
    private static final Pattern SEQUENCE = Pattern.compile("[0-9]{20}");

    private TableLayout() {}

    /** {@code _mem_wal/{lower-case hyphenated uuid}/}. */
    public static String shardFolder(UUID shard) {
        return MEM_WAL + shard + "/";
    }

    /**
     * The shard a folder name under {@code _mem_wal/} stands for; empty unless it is the canonical
     * lower-case form {@link #shardFolder} writes ({@code UUID.fromString} also accepts sloppy
     * forms such as {@code 1-1-1-1-1}, which would name another folder than the one listed).
     */
    public static Optional<UUID> parseShardFolder(String name) {
        try {
            UUID id = UUID.fromString(name);
            return id.toString().equals(name) ? Optional.of(id) : Optional.empty();
        } catch (IllegalArgumentException notAShard) {
            return Optional.empty();
        }
    }

    /**
     * The shards of the table in {@code store}, in id order: canonical shard folders holding a
     * manifest version (the rule above). One folder-level LIST of {@code _mem_wal/} and one of each
     * shard's manifest folder (usually a single page), not a listing of every WAL entry and SSTable
     * file: a writer opening after an hour of history on 4 shards listed 27,000 objects, which took
     * over 30 s on a loaded machine and held a failover back.
     */
    public static SortedSet<UUID> shards(ObjectStore store) {
        SortedSet<UUID> shards = new TreeSet<>();
        for (String folder : store.listFolders(MEM_WAL)) {
            String name = folder.substring(MEM_WAL.length(), folder.length() - 1);
            parseShardFolder(name)
                    .filter(shard -> holdsManifestVersion(store, shard))
                    .ifPresent(shards::add);
        }
        return shards;
    }

    private static boolean holdsManifestVersion(ObjectStore store, UUID shard) {
        String continuation = null;
        do {
            ListPage page = store.list(manifestFolder(shard), continuation, 100);
            for (ObjectMeta meta : page.objects()) {
                if (classify(meta.key()).kind() == MemWalObject.Kind.MANIFEST_VERSION) {
                    return true;
                }
            }
            continuation = page.continuation();
        } while (continuation != null);
        return false;
    }

    public static String manifestFolder(UUID shard) {
        return shardFolder(shard) + MANIFESTS + "/";
    }

    public static String manifestKey(UUID shard, long version) {
        return manifestFolder(shard) + BitReversedName.manifestName(version);
    }

    public static String versionHintKey(UUID shard) {
        return manifestFolder(shard) + VERSION_HINT;
    }

    public static String walFolder(UUID shard) {
        return shardFolder(shard) + WAL + "/";
    }

    public static String walEntryKey(UUID shard, long position) {
        return walFolder(shard) + BitReversedName.walEntryName(position);
    }

    /**
     * An SSTable folder name {@code {random8}_gen_{g}}: the random prefix keeps a retried flush of
     * the same generation from colliding with what a failed attempt left.
     */
    public static String ssTableFolderName(int random, long generation) {
        if (generation < 1) {
            throw new IllegalArgumentException("SSTable generation must be >= 1, was " + generation);
        }
        return HexFormat.of().toHexDigits(random) + "_gen_" + generation;
    }

    /** Whether {@code name} is an SSTable folder name, of any generation a {@code long} holds. */
    public static boolean isSsTableFolderName(String name) {
        return ssTableGeneration(name).isPresent();
    }

    /** The generation an SSTable folder name carries; empty if it is none. */
    public static OptionalLong ssTableGeneration(String name) {
        Matcher m = name == null ? null : SSTABLE_FOLDER.matcher(name);
        return m != null && m.matches() ? parseLong(m.group(1)) : OptionalLong.empty();
    }

    /**
     * Key of SSTable folder {@code name} of {@code shard}, ending in {@code /}.
     *
     * @throws IllegalArgumentException if {@code name} is not an SSTable folder name, so that no
     *     caller can build a key outside the shard folder
     */
    public static String ssTableFolder(UUID shard, String name) {
        if (!isSsTableFolderName(name)) {
            throw new IllegalArgumentException("not an SSTable folder name {random8}_gen_{g}: '" + name + "'");
        }
        return shardFolder(shard) + name + "/";
    }

    /** What {@code key}, a key under {@code _mem_wal/}, is. */
    public static MemWalObject classify(String key) {
        return MemWalObject.of(key);
    }

    static boolean isTemporary(String fileName) {
        return TemporaryFileNames.isTemporary(fileName);
    }

    /** {@code _walsink/gc/{shard}/}: the shard's garbage-collection floor records. */
    public static String gcFloorFolder(UUID shard) {
        return WALSINK + "gc/" + shard + "/";
    }

    /** {@code _walsink/gc/{shard}.json}: the single floor marker of earlier releases. */
    public static String legacyGcFloorKey(UUID shard) {
        return WALSINK + "gc/" + shard + ".json";
    }

    /** {@code _walsink/merges/{shard}/}: merges the compactor started and has not seen marked. */
    public static String mergeJournalFolder(UUID shard) {
        return WALSINK + "merges/" + shard + "/";
    }

    /** {@code _walsink/restores/{shard}}: a restore's reset of the shard's base-table rows, begun and not finished. */
    public static String restoreIntentKey(UUID shard) {
        return WALSINK + "restores/" + shard;
    }

    /** {@code _walsink/resets/{shard}}: the base version of a restore's latest reset of the shard's base-table rows. */
    public static String lastResetKey(UUID shard) {
        return WALSINK + "resets/" + shard;
    }

    /**
     * {@code _walsink/skipped/{shard}/}: the generation numbers claims passed over, as one record
     * {@code {from}-{to}} (two {@link #sequenceName}s) a claim.
     */
    public static String skippedGenerationsFolder(UUID shard) {
        return WALSINK + "skipped/" + shard + "/";
    }

    /** {@code _walsink/consumers/{id}/}: the records of one consumer id, one per split of its read. */
    public static String consumerFolder(String consumerId) {
        return CONSUMER_FOLDER + consumerId + "/";
    }

    /** {@code _walsink/jobs/{job}/bucket-{b}.bin}: a shard's descriptor when the job first opened it. */
    public static String jobStartRecordKey(String jobId, int bucket) {
        return jobStartFolder(jobId) + "bucket-" + bucket + ".bin";
    }

    public static String jobStartFolder(String jobId) {
        return JOB_START_FOLDER + jobId + "/";
    }

    /**
     * Whether a file name in a job's folder has the shape of a job-start record ({@code
     * bucket-*.bin}): the sink refuses such a name unless {@link #jobStartRecordBucket} reads it,
     * and the collector removes it once old.
     */
    public static boolean looksLikeJobStartRecord(String name) {
        return name.startsWith("bucket-") && name.endsWith(".bin");
    }

    /**
     * The job whose folder holds {@code key} if it has the shape of a job-start record ({@code
     * _walsink/jobs/{job}/bucket-*.bin}, see {@link #looksLikeJobStartRecord}); empty otherwise.
     */
    public static Optional<String> jobOfStartRecord(String key) {
        if (!key.startsWith(JOB_START_FOLDER)) {
            return Optional.empty();
        }
        String[] jobAndName = key.substring(JOB_START_FOLDER.length()).split("/", -1);
        return jobAndName.length == 2 && !jobAndName[0].isEmpty() && looksLikeJobStartRecord(jobAndName[1])
                ? Optional.of(jobAndName[0])
                : Optional.empty();
    }

    /** The bucket of a job-start record name written by {@link #jobStartRecordKey}; empty for any other name. */
    public static OptionalInt jobStartRecordBucket(String name) {
        Matcher m = JOB_START_RECORD.matcher(name);
        return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
    }

    /**
     * The name of record {@code n} of a sequence under {@code _walsink/} (floor records, lease
     * entries, journal generations): 20 digits, so names sort as numbers do.
     */
    public static String sequenceName(long n) {
        return String.format("%020d", n);
    }

    /** The number a {@link #sequenceName} stands for; empty for any other name. */
    public static OptionalLong parseSequenceName(String name) {
        return SEQUENCE.matcher(name).matches() ? parseLong(name) : OptionalLong.empty();
    }

    /** Digits as a {@code long}; empty beyond its range (such a name was never written by us). */
    private static OptionalLong parseLong(String digits) {
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException beyondLong) {
            return OptionalLong.empty();
        }
    }
}
