package io.walsink.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.MemWalObject.Kind;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.ListPage;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.ObjectStore;
import io.walsink.storage.TemporaryFileNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table layout: the keys writers build, what each key under {@code _mem_wal/} is, and the one
 * rule for what a shard is, on the folders the six earlier copies of the rule disagreed about.
 */
class TableLayoutTest {
    private static final UUID SHARD = UUID.fromString("4a388480-a25b-59a8-b058-24217f980256");
    private static final String FOLDER = "_mem_wal/" + SHARD + "/";
    private static final String V1 = BitReversedName.manifestName(1);
    private static final String P1 = BitReversedName.walEntryName(1);

    @Test
    void keysOfAShardsObjects() {
        assertThat(TableLayout.shardFolder(SHARD)).isEqualTo(FOLDER);
        assertThat(TableLayout.manifestKey(SHARD, 1)).isEqualTo(FOLDER + "manifest/" + V1);
        assertThat(TableLayout.versionHintKey(SHARD)).isEqualTo(FOLDER + "manifest/version_hint.json");
        assertThat(TableLayout.walEntryKey(SHARD, 1)).isEqualTo(FOLDER + "wal/" + P1);
        assertThat(TableLayout.ssTableFolder(SHARD, "0a0b0c0d_gen_3")).isEqualTo(FOLDER + "0a0b0c0d_gen_3/");
        assertThat(TableLayout.ssTableFolderName(0x0a0b0c0d, 3)).isEqualTo("0a0b0c0d_gen_3");
    }

    @Test
    void noSsTableKeyLeadsOutOfTheShardFolder() {
        assertThatThrownBy(() -> TableLayout.ssTableFolder(SHARD, "../../../elsewhere_gen_9"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TableLayout.ssTableFolderName(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TableLayout.ssTableGeneration("0a0b0c0d_gen_12")).hasValue(12);
        assertThat(TableLayout.ssTableGeneration("0A0B0C0D_gen_12")).isEmpty();
        assertThat(TableLayout.ssTableGeneration("0a0b0c0d_gen_012")).isEmpty();
        // A generation no long holds is no SSTable folder (the collector must not fail parsing it).
        assertThat(TableLayout.ssTableGeneration("0a0b0c0d_gen_99999999999999999999"))
                .isEmpty();
    }

    @Test
    void onlyTheCanonicalFormNamesAShardFolder() {
        assertThat(TableLayout.parseShardFolder(SHARD.toString())).contains(SHARD);
        assertThat(TableLayout.parseShardFolder(SHARD.toString().toUpperCase())).isEmpty();
        assertThat(TableLayout.parseShardFolder("1-1-1-1-1")).isEmpty();
        assertThat(TableLayout.parseShardFolder("wal")).isEmpty();
    }

    @Test
    void classifiesEveryKindOfObject() {
        assertKind(FOLDER + "manifest/" + V1, Kind.MANIFEST_VERSION, 1);
        assertKind(FOLDER + "manifest/version_hint.json", Kind.VERSION_HINT, 0);
        assertKind(FOLDER + "wal/" + BitReversedName.walEntryName(7), Kind.WAL_ENTRY, 7);
        assertKind(FOLDER + "0a0b0c0d_gen_3/data/x.lance", Kind.SSTABLE_FILE, 3);
        assertKind(FOLDER + "0a0b0c0d_gen_3/_pk_index/page_lookup.lance", Kind.SSTABLE_FILE, 3);
        assertKind(FOLDER + "manifest/" + TemporaryFileNames.next(), Kind.TEMPORARY, 0);
        assertKind(FOLDER + "wal/" + TemporaryFileNames.next(), Kind.TEMPORARY, 0);
        assertThat(TableLayout.classify(FOLDER + "0a0b0c0d_gen_3/_versions/1.manifest")
                        .ssTableFolder())
                .contains("0a0b0c0d_gen_3");
        assertThat(TableLayout.classify(FOLDER + "manifest/" + V1).shard()).contains(SHARD);
    }

    @Test
    void saysWhyAnObjectDoesNotBelong() {
        assertProblem(FOLDER + "manifest/notes.txt", "not a manifest version name");
        assertProblem(FOLDER + "manifest/", "not a manifest version name"); // an S3 folder marker
        assertProblem(FOLDER + "wal/" + V1, "not a WAL entry name");
        assertProblem(FOLDER + "wal/x/" + P1, MemWalObject.UNEXPECTED); // WAL entries are not nested
        assertProblem(FOLDER + "manifest/x/" + V1, MemWalObject.UNEXPECTED);
        assertProblem(FOLDER + "README", MemWalObject.UNEXPECTED);
        assertProblem(FOLDER, MemWalObject.UNEXPECTED); // the shard folder's own marker
        assertProblem(FOLDER + "0a0b0c0d_gen_3", MemWalObject.UNEXPECTED); // a file, not a folder
        assertProblem("_mem_wal/" + SHARD.toString().toUpperCase() + "/manifest/" + V1, MemWalObject.OUTSIDE);
        assertProblem("_mem_wal/README", MemWalObject.OUTSIDE);
        assertProblem("_mem_wal/", MemWalObject.OUTSIDE);
        assertThatThrownBy(() -> TableLayout.classify("_walsink/jobs/j/bucket-0.bin"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The rule (a canonical folder holding a manifest version) on the folders where the earlier
     * copies disagreed. Before: the compactor counted a folder with anything under {@code
     * manifest/}, S3 folder markers included; the reader, the collector and {@code verify} any
     * folder holding an object, its own marker included; the writer's placement and {@code inspect}
     * any folder holding an object below it, but not its marker.
     */
    @Test
    void aShardIsACanonicalFolderHoldingAManifestVersion() {
        InMemoryObjectStore store = new InMemoryObjectStore();
        UUID claimed = shard(1);
        UUID onlyWal = shard(2);
        UUID onlyHint = shard(3);
        UUID onlySsTable = shard(4);
        UUID manifestMarker = shard(5);
        UUID folderMarker = shard(6);
        UUID collectedToTheFloor = shard(7);
        put(store, TableLayout.manifestKey(claimed, 1));
        put(store, TableLayout.walEntryKey(claimed, 1));
        put(store, TableLayout.walEntryKey(onlyWal, 1));
        put(store, TableLayout.versionHintKey(onlyHint));
        put(store, TableLayout.ssTableFolder(onlySsTable, "0a0b0c0d_gen_1") + "_versions/1.manifest");
        put(store, TableLayout.manifestFolder(manifestMarker));
        put(store, TableLayout.shardFolder(folderMarker));
        put(store, TableLayout.manifestKey(collectedToTheFloor, 12)); // versions below 12 collected
        put(store, "_mem_wal/" + SHARD.toString().toUpperCase() + "/manifest/" + V1);
        put(store, "_mem_wal/1-1-1-1-1/manifest/" + V1);

        assertThat(TableLayout.shards(store)).containsExactly(claimed, collectedToTheFloor);
        MemWalListing listing = MemWalListing.of(store);
        assertThat(listing.shards()).containsExactly(claimed, collectedToTheFloor);
        assertThat(listing.folders())
                .as("what verify looks at: every canonical folder holding an object")
                .containsExactly(
                        claimed, onlyWal, onlyHint, onlySsTable, manifestMarker, folderMarker, collectedToTheFloor);
        assertThat(listing.outsideShardFolders()).hasSize(2);
        assertThat(listing.objects(claimed))
                .extracting(l -> l.object().kind())
                .containsExactlyInAnyOrder(Kind.MANIFEST_VERSION, Kind.WAL_ENTRY);
        assertThat(listing.objects(shard(9))).isEmpty();
    }

    @Test
    void findingTheShardsListsFoldersAndManifestsNotTheirHistory(@TempDir Path dir) {
        LocalObjectStore local = new LocalObjectStore(dir);
        List<String> listed = new ArrayList<>();
        ObjectStore recording = new ForwardingObjectStore(local) {
            @Override
            public ListPage list(String prefix, String continuation, int maxKeys) {
                listed.add(prefix);
                return super.list(prefix, continuation, maxKeys);
            }

            @Override
            public SortedSet<String> listFolders(String prefix) {
                listed.add("folders of " + prefix);
                return local.listFolders(prefix);
            }
        };
        UUID claimed = shard(1);
        UUID onlyWal = shard(2);
        put(local, TableLayout.manifestKey(claimed, 1));
        put(local, TableLayout.versionHintKey(claimed));
        for (int entry = 1; entry <= 50; entry++) {
            put(local, TableLayout.walEntryKey(claimed, entry));
            put(local, TableLayout.walEntryKey(onlyWal, entry));
        }
        put(local, "_mem_wal/1-1-1-1-1/manifest/" + V1);

        assertThat(TableLayout.shards(recording)).containsExactly(claimed);
        assertThat(listed)
                .containsExactlyInAnyOrder(
                        "folders of _mem_wal/",
                        TableLayout.manifestFolder(claimed),
                        TableLayout.manifestFolder(onlyWal));
        assertThat(MemWalListing.of(local).shards())
                .as("the full listing agrees")
                .containsExactly(claimed);
    }

    @Test
    void aTableWithoutMemWalObjectsHasNoShards() {
        assertThat(TableLayout.shards(new InMemoryObjectStore())).isEmpty();
    }

    @Test
    void walsinkRecords() {
        assertThat(TableLayout.gcFloorFolder(SHARD)).isEqualTo("_walsink/gc/" + SHARD + "/");
        assertThat(TableLayout.legacyGcFloorKey(SHARD)).isEqualTo("_walsink/gc/" + SHARD + ".json");
        assertThat(TableLayout.mergeJournalFolder(SHARD)).isEqualTo("_walsink/merges/" + SHARD + "/");
        assertThat(TableLayout.COMPACTION_LEASE_FOLDER).isEqualTo("_walsink/compaction-lease/");
        assertThat(TableLayout.jobStartRecordKey("j1", 3)).isEqualTo("_walsink/jobs/j1/bucket-3.bin");
        assertThat(TableLayout.jobStartRecordBucket("bucket-3.bin")).isEqualTo(OptionalInt.of(3));
        assertThat(TableLayout.jobStartRecordBucket("bucket-03.bin")).isEmpty();
        assertThat(TableLayout.looksLikeJobStartRecord("bucket-03.bin")).isTrue();
        assertThat(TableLayout.looksLikeJobStartRecord("descriptor.bin")).isFalse();
        assertThat(TableLayout.jobOfStartRecord("_walsink/jobs/j1/bucket-3.bin"))
                .contains("j1");
        assertThat(TableLayout.jobOfStartRecord("_walsink/jobs/j1/x/bucket-3.bin"))
                .isEmpty();
        assertThat(TableLayout.jobOfStartRecord("_walsink/jobs//bucket-3.bin")).isEmpty();
        assertThat(TableLayout.jobOfStartRecord("_walsink/gc/j1/bucket-3.bin")).isEmpty();
        assertThat(TableLayout.sequenceName(42)).isEqualTo("00000000000000000042");
        assertThat(TableLayout.parseSequenceName("00000000000000000042")).isEqualTo(OptionalLong.of(42));
        assertThat(TableLayout.parseSequenceName("42")).isEmpty();
        assertThat(TableLayout.parseSequenceName("99999999999999999999")).isEmpty();
    }

    private static void assertKind(String key, Kind kind, long number) {
        MemWalObject object = TableLayout.classify(key);
        assertThat(object.kind()).as(key).isEqualTo(kind);
        assertThat(object.number()).as(key).isEqualTo(number);
        assertThat(object.belongs()).as(key).isEqualTo(kind != Kind.TEMPORARY);
    }

    private static void assertProblem(String key, String problem) {
        MemWalObject object = TableLayout.classify(key);
        assertThat(object.kind()).as(key).isEqualTo(Kind.UNKNOWN);
        assertThat(object.problem()).as(key).isEqualTo(Optional.of(problem));
    }

    private static UUID shard(int n) {
        return UUID.fromString("00000000-0000-4000-8000-00000000000" + n);
    }

    private static void put(ObjectStore store, String key) {
        store.put(key, new byte[] {1});
    }
}
