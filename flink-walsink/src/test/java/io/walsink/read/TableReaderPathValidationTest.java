package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.ShardManifestCodec;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.Folders;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSTable paths come from manifests in storage and become dataset URIs: a manifest naming a
 * folder outside the shard, or a folder of another generation, is refused with an error naming
 * the manifest object and the path, and nothing outside the table is read.
 */
class TableReaderPathValidationTest {
    private static final String TRAVERSAL = "../../../elsewhere_gen_9";

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private String uri;
    private LocalObjectStore store;
    private MemWalTable.Shard shard;
    private ManifestStore manifests;
    private WrittenSsTable gen1;

    @BeforeEach
    void tableWithOnePublishedSsTableAndADatasetNextToIt() {
        uri = dir.resolve("table").toString();
        LanceTables.create(uri, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        shard = table.shard();
        gen1 = shard.flush(List.of(RowOp.put(row("id", 1L, "name", "in table", "score", 1))), 4);
        shard.publish();
        manifests = new ManifestStore(store, shard.id());

        // A real SSTable dataset outside the table, where the traversal path leads.
        String other = dir.resolve("other").toString();
        LanceTables.create(other, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        MemWalTable.Shard foreign = new MemWalTable(
                        other, Map.of(), new LocalObjectStore(Path.of(other)), WalSchemaProfile.SPEC, allocator)
                .shard();
        WrittenSsTable t = foreign.flush(List.of(RowOp.put(row("id", 99L, "name", "outside", "score", 9))), 4);
        Folders.copyTree(Path.of(other, "_mem_wal", foreign.id().toString(), t.path()), dir.resolve("elsewhere_gen_9"));
        Path target = Path.of(uri, "_mem_wal", shard.id().toString())
                .resolve(TRAVERSAL)
                .normalize();
        assertThat(target).isEqualTo(dir.resolve("elsewhere_gen_9"));
        assertThat(Files.isDirectory(target.resolve("_versions"))).isTrue();
    }

    /** Writes the next manifest version as raw bytes, the way a corrupt or hostile writer would. */
    private String publishRaw(SsTable extra) {
        ShardManifest latest = manifests.readLatest().orElseThrow();
        long version = latest.version() + 1;
        ShardManifest next = latest.toBuilder()
                .version(version)
                .currentGeneration(Math.max(latest.currentGeneration(), extra.generation() + 1))
                .addSstable(extra)
                .build();
        store.putIfAbsent(manifests.versionKey(version), ShardManifestCodec.encode(next));
        return manifests.location(manifests.versionKey(version));
    }

    private TableReader reader() {
        return new TableReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
    }

    @Test
    void ssTablePathLeadingOutOfTheTableIsRefused() {
        String manifest = publishRaw(SsTable.of(9, TRAVERSAL));

        for (ReadMode mode : ReadMode.values()) {
            assertThatThrownBy(() -> reader().read(mode))
                    .isInstanceOf(FormatException.class)
                    .hasMessageContaining(manifest)
                    .hasMessageContaining("'" + TRAVERSAL + "'");
        }
    }

    @Test
    void folderOfAnotherGenerationIsRefused() {
        String manifest = publishRaw(SsTable.of(2, gen1.path())); // the generation-1 folder claims generation 2

        assertThatThrownBy(() -> reader().read(ReadMode.COMMITTED))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining(manifest)
                .hasMessageContaining("'" + gen1.path() + "'")
                .hasMessageContaining("generation 2");
    }
}
