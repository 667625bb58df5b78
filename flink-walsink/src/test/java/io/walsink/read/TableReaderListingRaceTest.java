package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.TemporaryFileNames;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RacingFileSystem;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A committed reader of a local table while a writer works in it: temporary files
 * that vanish while the reader lists {@code _mem_wal/} must not make shards, and their rows,
 * disappear. The race is forced by {@link RacingFileSystem} under the reader's store.
 */
class TableReaderListingRaceTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void everyShardAndRowIsReadWhileTemporaryFilesVanish() throws IOException {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        MemWalTable table =
                new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        RowModel model = new RowModel(TableReaderTest.COLUMNS, List.of("id"));
        List<UUID> shards = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            MemWalTable.Shard shard = table.shard();
            List<RowOp> rows = List.of(RowOp.put(row("id", (long) s, "name", "s" + s, "score", s)));
            shard.flush(rows, 4);
            shard.publish();
            model.apply(rows);
            shards.add(shard.id());
        }
        // A writer of the last shard is between "temporary file written" and "linked and removed".
        // Bounded, so that a walk which keeps seeing the new files still ends.
        Path manifests = Path.of(uri, "_mem_wal", shards.get(2).toString(), "manifest");
        AtomicInteger budget = new AtomicInteger(100);
        RacingFileSystem fs = new RacingFileSystem();
        fs.whenListed(p -> TemporaryFileNames.isTemporary(p.getFileName().toString()), p -> {
            Files.delete(p);
            if (budget.decrementAndGet() > 0) {
                Files.write(p.resolveSibling(TemporaryFileNames.next()), new byte[] {1}); // its next put
            }
        });
        Files.write(manifests.resolve(TemporaryFileNames.next()), new byte[] {1});
        TableReader reader = new TableReader(
                new TableLocation(new LocalObjectStore(fs.wrap(Path.of(uri))), uri, Map.of()),
                WalSchemaProfile.SPEC,
                allocator);

        assertThat(reader.shards()).containsExactlyInAnyOrderElementsOf(shards);
        int afterShards = fs.fired();
        assertThat(reader.read(ReadMode.COMMITTED).rows()).containsExactlyElementsOf(model.rows());

        assertThat(afterShards).as("the race fired while listing shards").isPositive();
        assertThat(fs.fired()).as("the race fired while reading").isGreaterThan(afterShards);
        assertThat(budget.get())
                .as("the bound on new temporary files was not reached")
                .isPositive();
    }
}
