package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.format.manifest.CorruptManifestException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableNotFoundException;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.CorruptWalEntryException;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every failure of a read is a typed format error naming the object at fault. */
class TableReaderFailuresTest {
    private static final byte[] GARBAGE = {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0x01};

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private String uri;
    private LocalObjectStore store;
    private MemWalTable table;
    private MemWalTable.Shard shard;
    private WrittenSsTable sstable;

    @BeforeEach
    void tableWithOnePublishedSsTableAndAWalTail() {
        uri = dir.resolve("table").toString();
        LanceTables.create(uri, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        shard = table.shard();
        sstable = shard.flush(List.of(RowOp.put(row("id", 1L, "name", "a", "score", 1))), 4);
        shard.publish();
        shard.walEntry(List.of(RowOp.put(row("id", 2L, "name", "b", "score", 2))));
    }

    private TableReader reader() {
        return new TableReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
    }

    @Test
    void missingTable() {
        String missing = dir.resolve("nothing-here").toString();
        TableReader reader = new TableReader(
                new TableLocation(new LocalObjectStore(dir.resolve("nothing-here")), missing, Map.of()),
                WalSchemaProfile.SPEC,
                allocator);
        assertThatThrownBy(() -> reader.read(ReadMode.COMMITTED))
                .isInstanceOfSatisfying(TableNotFoundException.class, e -> assertThat(e.location())
                        .isEqualTo(missing));
    }

    @Test
    void corruptManifestVersion() {
        ManifestStore manifests = new ManifestStore(store, shard.id());
        store.putIfAbsent(manifests.versionKey(3), GARBAGE);
        assertThatThrownBy(() -> reader().read(ReadMode.COMMITTED))
                .isInstanceOfSatisfying(CorruptManifestException.class, e -> assertThat(e.location())
                        .endsWith(manifests.versionKey(3)));
    }

    @Test
    void corruptWalEntryFailsLatestOnly() {
        WalLog wal = new WalLog(store, shard.id(), new WalEntryCodec(table.storage(), allocator));
        String key = wal.key(3); // 1 = the flushed generation, 2 = the tail entry
        store.putIfAbsent(key, GARBAGE);

        assertThat(reader().read(ReadMode.COMMITTED).rows()).hasSize(1);
        assertThatThrownBy(() -> reader().read(ReadMode.LATEST))
                .isInstanceOfSatisfying(CorruptWalEntryException.class, e -> assertThat(e.location())
                        .endsWith(key));
    }

    @Test
    void publishedSsTableThatIsMissing() throws IOException {
        Path folder = Path.of(uri, "_mem_wal", shard.id().toString(), sstable.path());
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        assertThatThrownBy(() -> reader().read(ReadMode.COMMITTED))
                .isInstanceOfSatisfying(FormatException.class, e -> assertThat(e.location())
                        .endsWith("/_mem_wal/" + shard.id() + "/" + sstable.path()))
                .hasMessageContaining("missing");
    }
}
